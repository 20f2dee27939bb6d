/// Every option of cnpin, declared once with its help. A command that means a little more by one
/// says so with `explained(_:)`; the choices an option takes are declared with it.
extension Option {
  // Every command
  static let help = Option("--help", "-h", help: "show this help")
  static let json = Option("--json", help: "a JSON report instead of text")
  static let catalogue = Option(
    "--catalogue", value: "FILE", help: "the CA catalogue to use instead of the compiled-in one (cnpin catalogue)")
  static let at = Option(
    "--at", value: "DATE", help: "judge as of DATE (YYYY-MM-DD or a time, UTC): certificates, the catalogue's dates, expiry")

  // Network
  static let cafile = Option(
    "--cafile", "--cacert", value: "PEM",
    help:
      "trust only the anchors in this file (default: the system store); -k/--insecure is refused: cnpin never turns verification off"
  )
  static let resolve = Option(
    "--resolve", value: "HOST:PORT:ADDRESS", help: "connect to ADDRESS for HOST:PORT (repeatable), as curl's")
  static let timeout = Option(
    "--timeout", value: "SECONDS", help: "give up connecting or waiting for data after this long (default 15)")
  static let proxy = Option(
    "-x", "--proxy", value: "URL",
    help:
      "go through this proxy: [http://|https://][user:password@]host[:port]; without it https_proxy, all_proxy and no_proxy are used, as curl does"
  )
  static let noProxy = Option("--noproxy", value: "LIST", help: "hosts (comma-separated, * for all) that bypass the proxy")
  static let proxyCAFile = Option("--proxy-cacert", value: "PEM", help: "trust only these anchors for an https:// proxy")
  static let profile = Option(
    "--profile", value: "automatic|webpki|openssl",
    help:
      "the certificate rules beyond OpenSSL's: the Web-PKI profile for the system store only (automatic, the default), for every chain and its anchor (webpki, the strict mode), or none (openssl)"
  )

  // Pins and chains
  static let chain = Option(
    "--chain", value: "PEM", help: "judge this chain file (the leaf first) instead of connecting (repeatable)")
  static let host = Option("--host", value: "HOST", help: "the host a --chain is for (repeatable)")
  static let futureAnchors = Option(
    "--future-anchors", value: "PEM",
    help:
      "roots a trust store is about to carry (a CA's new roots, or the next CA's): the chain is also verified under each, and the shapes they give are pinned"
  )
  static let trust = Option("--trust", value: "STORE", help: "").choosing([
    ("system", "check root links against the system trust store (the default; Linux)"),
    ("none", "do not read the system store"),
  ])
  static let config = Option("--config", value: "FILE", help: "the configuration (property list or JSON) whose pins apply")
  static let warnDays = Option(
    "--warn-days", value: "N",
    help:
      "also report what expires within N days: the pins' expirationDate, the --policy's exp, and the CA catalogue's dated events that touch a host's pins (a pinned root leaving a store, a pinned family's last day, shorter leaves for leaf pins); exit 4 when that is all"
  )
  static let policy = Option(
    "--policy", value: "JWS", help: "an enterprise policy file whose exp --warn-days watches (read, not verified)")

  // pins
  static let pinsFormat = Option("--format", value: "FORMAT", help: "").choosing([
    ("names", "the Common Names, one per line (default); the leaf's subjectAltName on stderr"),
    (
      "plist",
      "the <key>/<dict> entry to paste under PinnedDomains: each CA by its naming scheme (LE's YR1 → prefixWithNumber \"YR\"; GlobalSign's \"… 2026 Q3\" → prefix up to the year), the leaf by subjectAltName HOST, and every root a store may verify the chain from marked mayBeAnchor, so that one chain covers them all"
    ),
    ("json", "the same entry as JSON"),
    ("swift", "a CNChain literal"),
    ("spki", "each certificate's SPKI SHA-256 (base64) and Common Name"),
    (
      "pem",
      "the verified chain as PEM, leaf first (what CNCertificate.certificates reads, and `cnpin check --chain` rehearses against)"
    ),
  ])
  static let document = Option("--document", help: "with plist or json: a whole configuration file that loads as it is")
  static let includesSubdomains = Option(
    "--includes-subdomains", help: "the suggested entry pins HOST's subdomains too (includesSubdomains)")
  static let addTo = Option(
    "--add-to", value: "FILE",
    help:
      "add the suggested chain to HOST's chainSet in FILE (plist or JSON), keeping everything the file pins, instead of printing it (whatever --format says); a missing FILE is created (a property list when named .plist, else JSON)"
  )

  // lint
  static let rehearse = Option(
    "--rehearse",
    help:
      "per CA: for each host whose chains name a catalogued CA (Let's Encrypt, Google Trust Services, Sectigo, GlobalSign, DigiCert, Amazon), warn about each shape of each of the CA's families that issue or are announced (its other key type included) that the chainSet refuses, with the stores that verify it and the family's dates; a host whose chains accept only retired families is an error: it refuses every certificate issued after their end"
  )
  static let stamp = Option(
    "--stamp", value: "OUT",
    help:
      "when there are no errors, write OUT: a Swift comment naming FILE (what the CNPinLint build-tool plugin hands the build, so that it lints before compiling)"
  )
  static let against = Option(
    "--against", value: "EXPORTED",
    help:
      "instead of the checks above, report drift between FILE and a file `cnpin convert` exported from it (NSPinnedDomains, Network Security Config, OkHttp or TrustKit, told from its content): FILE is exported again, with the same --chain, --cafile and --trust, and each host's keys, subdomain rule, expiry and enforcement compared; exit 1 on drift"
  )

  // get
  static let method = Option("-X", "--request", value: "METHOD", help: "the request's method (default GET, or POST with -d)")
  static let header = Option("-H", "--header", value: "'Name: value'", help: "a request header field (repeatable)")
  static let data = Option(
    "-d", "--data", value: "DATA|@FILE", help: "send DATA (or the contents of FILE) and make the default method POST")
  static let output = Option(
    "-o", "--output", value: "FILE",
    help:
      "write the body to FILE, whole or not at all (through a private file beside it, renamed into place), never replacing a file unless --clobber is given nor a directory; a device or a FIFO (-o /dev/null) is written into"
  )
  static let clobber = Option("--clobber", help: "let -o replace an existing file (curl replaces by default)")
  static let verbose = Option(
    "-v", "--verbose",
    help: "print each connection's verified chain and pin decision, and the response head, on standard error")
  static let include = Option("-i", "--include", help: "put the response head before the body on standard output")
  static let silent = Option("-s", "--silent", help: "hide the progress meter")
  static let location = Option(
    "-L", "--location", help: "accepted for curl habits: redirects are followed (each hop judged by its own host's pins)")
  static let maxRedirects = Option(
    "--max-redirs", value: "N", help: "follow at most N redirects (default 16, 0 follows none)")
  static let denyUnpinned = Option("--deny-unpinned", help: "refuse hosts the configuration does not pin")

  // convert
  static let to = Option("--to", value: "FORMAT", help: "").choosing([
    ("plist", "the same configuration as a property list; links without a type are written with their effective type, exact"),
    ("json", "the same configuration as JSON"),
    ("nspinneddomains", "Apple's Info.plist NSAppTransportSecurity › NSPinnedDomains"),
    ("nsc", "Android's res/xml/network_security_config.xml"),
    ("okhttp", "OkHttp's CertificatePinner, in Kotlin"),
    ("trustkit", "TrustKit's configuration dictionary, as a property list"),
  ])
  static let from = Option("--from", value: "FORMAT", help: "").choosing([
    ("trustkit", "TrustKit's configuration: an Info.plist with TSKConfiguration, or the dictionary alone"),
    ("nspinneddomains", "an Info.plist's NSAppTransportSecurity › NSPinnedDomains"),
    ("nsc", "Android's Network Security Config XML"),
    ("okhttp", "Kotlin source adding pins to OkHttp's CertificatePinner"),
  ])
  static let force = Option(
    "--force", help: "write the export even when something could not be carried (exit 1 all the same)")

  // catalogue
  static let catalogueFormat = Option("--format", value: "FORMAT", help: "").choosing([
    ("text", "the listing (default)"),
    (
      "json",
      "the catalogue document itself: save it, edit it (a newer list of events, a CA's next family) and give it to any command with --catalogue FILE"
    ),
  ])

  // policy
  static let key = Option(
    "--key", value: "KEY", help: "the private key (PEM) that signs, or for verify the public key (PEM or JWK)")
  static let algorithm = Option(
    "--alg", value: "ALG",
    help:
      "RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384 or ES512 (default: RS256 for RSA keys, ES256/384/512 by curve)"
  )
  static let clockSkew = Option(
    "--clock-skew", value: "SECONDS", help: "how far iat and exp may be off this machine's clock (0 to 300, default 0)")
  static let hours = Option("--hours", value: "N", help: "how long the rescue is valid, in hours (default 72, at most 720)")
  static let reportOnlyHours = Option(
    "--report-only-hours", value: "N",
    help: "only report HOST's pin failures for the first N hours (at most --hours: pinning is OFF for HOST meanwhile)")
}
