// The catalogue's data: facts (names, keys' SHA-256, dates, stores), read by the project from:
// - Let's Encrypt's certificates, the PEM files of the letsencrypt/website repository
//   (static/certs/, commit b89871e of 2026-08-21, MPL-2.0), hashed here with openssl; its
//   "Chains of Trust" page (2026-07-08) and "Certificate Compatibility" page (2025-01-19).
// - The other roots: Debian 12's ca-certificates 20230311+deb12u1 (Mozilla's root store, MPL-2.0),
//   hashed the same way on 2026-12-04.
// - Issuing CAs of other CAs: no published certificate could be read from this machine, so their
//   keys are not given (nil); their names and chains are as those CAs' servers send them.
// To add a hierarchy, append one; `Tests/CNPinningTests/CACatalogueTests.swift` checks that each
// entry is whole (every shape's names are certificates of it) and that the README's chains pass.

extension CACatalogue {
  private static let letsEncrypt = "letsencrypt.org/certs"
  private static let debian = "Debian 12 ca-certificates 20230311+deb12u1"
  private static let notHere = "no certificate read here"

  private static let isrgRootX1 = Certificate(
    name: "ISRG Root X1", role: "root (RSA 4096, generated 2015-06-04)", status: .current,
    spkiSHA256: "C5+lpZ7tcVwmwQIMcRtPbsQtWLABXhQzejna0wHFr8M=",
    certificateSHA256: "lrzsBiZJdvN0YHeazyjFp8/oo8Cq4RqP/O4FwL3fCMY=", source: "\(letsEncrypt)/isrgrootx1.pem; \(debian)")
  private static let isrgRootX2 = Certificate(
    name: "ISRG Root X2", role: "root (ECDSA P-384, generated 2020-09-04)", status: .current,
    spkiSHA256: "diGVwiVYbubAI3RW4hB9xU8e/CH2GnkuvVFZE8zmgzI=",
    certificateSHA256: "aXKbjhWobvwXelevtxcd/GSt0owvyozxUH40RTzLFHA=", source: "\(letsEncrypt)/isrg-root-x2.pem; \(debian)")

  /// The hierarchies, one per CA and key type.
  package static let hierarchies: [Hierarchy] = [
    Hierarchy(
      name: "Let's Encrypt RSA (Generation Y)",
      certificates: [
        isrgRootX1,
        Certificate(
          name: "Root YR", role: "root (RSA 4096, generated 2025-09-03)", status: .current,
          spkiSHA256: "fk6IOKit1ild5647BH06ujSIq5XbCgqlbYl6ANhhi88=",
          certificateSHA256: "5Xt+bxUMQZEC6NXAVXKf+We50agpvwDOyJymBOv0qG8=", source: "\(letsEncrypt)/gen-y/root-yr.pem"),
        Certificate(
          name: "Root YR", role: "cross-signed by ISRG Root X1, issued 2026-05-13", status: .current,
          spkiSHA256: "fk6IOKit1ild5647BH06ujSIq5XbCgqlbYl6ANhhi88=",
          certificateSHA256: "ByY50LFA1b/64WrZw/bMYIYEBiH1HuYabUaokVwHz3Y=", source: "\(letsEncrypt)/gen-y/root-yr-by-x1.pem"),
        Certificate(
          name: "Root YR", role: "cross-signed by ISRG Root X1, issued 2025-09-03 without the serverAuth EKU, revoked",
          status: .replaced, spkiSHA256: "fk6IOKit1ild5647BH06ujSIq5XbCgqlbYl6ANhhi88=",
          certificateSHA256: "JwxktroarpSwdW6D2NsHMvW1NLzcVF1E4zTV3U0Q/sA=", source: "\(letsEncrypt)/revoked/root-yr-by-x1.pem"),
        Certificate(
          name: "YR1", role: "issuing CA (RSA 2048)", status: .current,
          spkiSHA256: "LoMHBotttiDko50Gi13uXW71eIy7LAttI+rYT8wXF4w=",
          certificateSHA256: "E5SWNNmc1v1qqAvANP76zOsZaf7vmGWGcT7NuwV1jT8=", source: "\(letsEncrypt)/gen-y/int-yr1.pem",
          validUntil: "2028-09-02"),
        Certificate(
          name: "YR2", role: "issuing CA (RSA 2048)", status: .current,
          spkiSHA256: "nWN7PSep5XDQdge5zK24CnCRXHr3KvzhKEGxsdqCX9E=",
          certificateSHA256: "I4uFoAmcZblwR31XJPGh1HXOUFjP/k76hzOJm9uGPEc=", source: "\(letsEncrypt)/gen-y/int-yr2.pem",
          validUntil: "2028-09-02"),
        Certificate(
          name: "YR3", role: "issuing CA (RSA 2048)", status: .backup,
          spkiSHA256: "UaqofZhLVZrGnpKfiIoCLYMuCJ/026CkErUQG8pLx5k=",
          certificateSHA256: "NVAMtjuNl2lSjWXYciD1HAaYB6WVrL8vtuyjj74KS9I=", source: "\(letsEncrypt)/gen-y/int-yr3.pem",
          validUntil: "2028-09-02"),
      ],
      issuing: ["YR1", "YR2", "YR3"],
      shapes: [
        Shape(
          above: ["ISRG Root X1", "Root YR"],
          stores:
            "every store of 2026 (those that trust ISRG Root X1: iOS ≥ 10, macOS ≥ 10.12.1, Android ≥ 7.1.1, Debian ≥ 8, Windows, Java ≥ 8u141)"
        ),
        Shape(above: ["Root YR"], stores: "stores that carry Root YR: none yet (submitted to the root programs)"),
      ], issues: true),
    Hierarchy(
      name: "Let's Encrypt ECDSA (Generation Y)",
      certificates: [
        isrgRootX1, isrgRootX2,
        Certificate(
          name: "ISRG Root X2", role: "cross-signed by ISRG Root X1, issued 2026-05-13", status: .current,
          spkiSHA256: "diGVwiVYbubAI3RW4hB9xU8e/CH2GnkuvVFZE8zmgzI=",
          certificateSHA256: "7l96vWmBuwJVYyzY9JKDRRtLGIRNEgQLRO4A8HuP4sY=", source: "\(letsEncrypt)/gen-y/root-x2-by-x1.pem"),
        Certificate(
          name: "ISRG Root X2", role: "cross-signed by ISRG Root X1, issued 2025-09-03 without the serverAuth EKU, revoked",
          status: .replaced, spkiSHA256: "diGVwiVYbubAI3RW4hB9xU8e/CH2GnkuvVFZE8zmgzI=",
          certificateSHA256: "AL6u8oAnfjiZnTxgsnc26PIeeCw9S0RKw01GWnqyh8U=", source: "\(letsEncrypt)/revoked/root-x2-by-x1.pem"),
        Certificate(
          name: "ISRG Root X2", role: "cross-signed by ISRG Root X1, 2020-09-04 to 2025-09-15", status: .retired,
          spkiSHA256: "diGVwiVYbubAI3RW4hB9xU8e/CH2GnkuvVFZE8zmgzI=",
          certificateSHA256: "iwW2jMZZ5e0PyzjyyUL7/SAOby/5+F1jxplO9eCwJwE=",
          source: "\(letsEncrypt)/isrg-root-x2-cross-signed.pem"),
        Certificate(
          name: "Root YE", role: "root (ECDSA P-384, generated 2025-09-03)", status: .current,
          spkiSHA256: "sCkq5UWXjg+7mKu9lMhhYF5bGLsy7VI/UNW3tccdR7w=",
          certificateSHA256: "4U/8rVsAJXMQBsqkOhIaItjpcA9Puc+FLwKnCKpdVmY=", source: "\(letsEncrypt)/gen-y/root-ye.pem"),
        Certificate(
          name: "Root YE", role: "cross-signed by ISRG Root X2, issued 2026-05-13", status: .current,
          spkiSHA256: "sCkq5UWXjg+7mKu9lMhhYF5bGLsy7VI/UNW3tccdR7w=",
          certificateSHA256: "D8CQHMorrp6f27AtUNAvEJT3s2ZyCGmRueiXYm3EhfA=", source: "\(letsEncrypt)/gen-y/root-ye-by-x2.pem"),
        Certificate(
          name: "Root YE", role: "cross-signed by ISRG Root X2, issued 2025-09-03 without the serverAuth EKU, revoked",
          status: .replaced, spkiSHA256: "sCkq5UWXjg+7mKu9lMhhYF5bGLsy7VI/UNW3tccdR7w=",
          certificateSHA256: "LXtbQp+AwPCgMqAFH2lqD40LmJgOcfbyROrGNnvEyRc=", source: "\(letsEncrypt)/revoked/root-ye-by-x2.pem"),
        Certificate(
          name: "YE1", role: "issuing CA (ECDSA P-384)", status: .current,
          spkiSHA256: "brzvtCELCIZUo4sD/qPX0ccRtPsd3DY6RfmxpOU9oB4=",
          certificateSHA256: "ojctBkMelxY2Xu7UfsAgNRSX0YL8wDjkV+WBaKA8rAc=", source: "\(letsEncrypt)/gen-y/int-ye1.pem",
          validUntil: "2028-09-02"),
        Certificate(
          name: "YE2", role: "issuing CA (ECDSA P-384)", status: .current,
          spkiSHA256: "s/tdAOmUzd8syaTuqfgGvFcn6DzA5Cmb+Vby1ST+U3Y=",
          certificateSHA256: "l2WN6MaN+pis4eUCimPVShqukRs+IUcQdsaFDNCMurQ=", source: "\(letsEncrypt)/gen-y/int-ye2.pem",
          validUntil: "2028-09-02"),
        Certificate(
          name: "YE3", role: "issuing CA (ECDSA P-384)", status: .backup,
          spkiSHA256: "ppiiCCS+BOR6GjPE+kiHMb6SAR8jox6QDiyibJwqz84=",
          certificateSHA256: "grz8SCzBn3Hm+Y9KAnYW69ptRwltQIszYWDRwO+LmVo=", source: "\(letsEncrypt)/gen-y/int-ye3.pem",
          validUntil: "2028-09-02"),
      ],
      issuing: ["YE1", "YE2", "YE3"],
      shapes: [
        Shape(
          above: ["ISRG Root X1", "ISRG Root X2", "Root YE"],
          stores:
            "stores that trust ISRG Root X1 but not X2: iOS < 16, macOS < 13, Android < 14, Debian < 12, Firefox < 97, Java before 8u401, 11.0.22, 17.0.10 and 21.0.2"
        ),
        Shape(
          above: ["ISRG Root X2", "Root YE"],
          stores:
            "stores that trust ISRG Root X2: iOS ≥ 16, macOS ≥ 13, Android ≥ 14, Debian ≥ 12, Ubuntu ≥ 18.04 (updated), Firefox ≥ 97, Chrome ≥ 105, Windows"
        ),
        Shape(above: ["Root YE"], stores: "stores that carry Root YE: none yet (submitted to the root programs)"),
      ], issues: true),
    Hierarchy(
      name: "Let's Encrypt RSA (Generation X, retired in May 2026)",
      certificates: [isrgRootX1]
        + [
          ("R10", "K7rZOrXHknnsEhUH8nLL4MZkejquUuIvOIr6tCa0rbo=", "nXw/GqatKy7A1c8eJG+NmubLyf0HVa03u5dLHy+2A/M="),
          ("R11", "bdrBhpj38ffhxpubzkINl0rG+UyossdhcBYj+Zx2fcc=", "WR6c5shj06B56fq+FHjHM5omshJp3eeVIRNhAkrjGkQ="),
          ("R12", "kZwN96eHtZftBWrOZUsd6cA4es80n3NzSk/XtYz2EqQ=", "Ex/Od4QBaJmloAIDqe/IDxjrvXVYBxftwVU1gJMINuw="),
          ("R13", "AlSQhgtJirc8ahLyekmtX+Iw+v46yPYRLJt9Cq1GlB0=", "07EoIWqEP47xMhUB9d9Spd9Sk57iwZKXcSzT3k1Bk1Q="),
          ("R14", "8WR6XuPvrFTIkukwWE/keXm3rNHHbBJxvKHFB22GmIg=", "JNRaqbjWBT0oHzhCyMwMbBr3zN/ULdXBL2p0+pMj96I="),
        ].map {
          Certificate(
            name: $0.0, role: "issuing CA (RSA 2048), until 2027-03-12", status: .retired, spkiSHA256: $0.1,
            certificateSHA256: $0.2, source: "\(letsEncrypt)/2024/\($0.0.lowercased()).pem")
        },
      issuing: ["R10", "R11", "R12", "R13", "R14"],
      shapes: [Shape(above: ["ISRG Root X1"], stores: "every store of 2026")], issues: false),
    Hierarchy(
      name: "Let's Encrypt ECDSA (Generation X, retired in May 2026)",
      certificates: [isrgRootX1, isrgRootX2]
        + [
          ("E5", "NYbU7PBwV4y9J67c4guWTki8FJ+uudrXL0a4V4aRcrg=", "54jRSwQ2tRILvuPxXBW63wjBQH/nJWik8W+RUcOA4eM="),
          ("E6", "0Bbh/jEZSKymTy3kTOhsmlHKBB32EDu1KojrP3YfV9c=", "Blq30qBQ+UdYcSF2XY0HDA4TMNV5j6pCwgcnSe0pN2I="),
          ("E7", "y7xVm0TVJNahMr2sZydE2jQH8SquXV9yLF9seROHHHU=", "VHFUICJMW2W+7QGNw5QNczjFd+Mi1UiPYz2Mao/tYbI="),
          ("E8", "iFvwVyJSxnQdyaUvUERIf+8qk7gRze3612JMwoO3zdU=", "rBJ0VCJn8XtSVTW1Vjv3Mf67GCUztGqC3Iactk61KMA="),
          ("E9", "8UQKm3bh5B5TpMtGEym/Yze0GXJr5RPkLhnxxpHF1LI=", "QYXfl4BsK6dvHXmCPxEv+mOaSczcmQkIECBnq2QSuIY="),
        ].map {
          Certificate(
            name: $0.0, role: "issuing CA (ECDSA P-384), until 2027-03-12; also cross-signed by ISRG Root X1",
            status: .retired, spkiSHA256: $0.1, certificateSHA256: $0.2, source: "\(letsEncrypt)/2024/\($0.0.lowercased()).pem")
        },
      issuing: ["E5", "E6", "E7", "E8", "E9"],
      shapes: [
        Shape(above: ["ISRG Root X2"], stores: "stores that trust ISRG Root X2"),
        Shape(above: ["ISRG Root X1"], stores: "stores that trust ISRG Root X1 only, through the issuing CA's cross-sign"),
      ], issues: false),
    Hierarchy(
      name: "Google Trust Services RSA",
      certificates: [
        Certificate(
          name: "GTS Root R1", role: "root (RSA 4096)", status: .current,
          spkiSHA256: "hxqRlPTu1bMS/0DITB1SSu0vd4u/8l8TjPgfaAp63Gc=",
          certificateSHA256: "2UdDKr3nt/qQ/C5rWRAbEoDg4cfk5A+jxoh//1en9M8=", source: debian),
        Certificate(
          name: "GTS Root R1", role: "cross-signed by GlobalSign Root CA", status: .current,
          spkiSHA256: "hxqRlPTu1bMS/0DITB1SSu0vd4u/8l8TjPgfaAp63Gc=", certificateSHA256: nil,
          source: "the key of GTS Root R1 (\(debian)); the certificate: \(notHere)"),
        Certificate(
          name: "GlobalSign Root CA", role: "root (RSA 2048, 1998)", status: .current,
          spkiSHA256: "K87oWBWM9UZfyddvDfoxL+8lpNyoUB2ptGtn0fv6G2Q=",
          certificateSHA256: "69QQQOS7PsdCyeOB0x7ypBpItmhclufO88HfbNQzHJk=", source: debian),
        Certificate(
          name: "WR1", role: "issuing CA (RSA)", status: .current, spkiSHA256: nil, certificateSHA256: nil, source: notHere),
      ],
      issuing: ["WR1"],
      shapes: [
        Shape(above: ["GTS Root R1"], stores: "stores that carry GTS Root R1 (Debian 12 does)"),
        Shape(above: ["GlobalSign Root CA", "GTS Root R1"], stores: "stores that carry GlobalSign Root CA but not GTS Root R1"),
      ], issues: true),
    Hierarchy(
      name: "Google Trust Services ECDSA",
      certificates: [
        Certificate(
          name: "GTS Root R4", role: "root (ECDSA P-384)", status: .current,
          spkiSHA256: "mEflZT5enoR1FuXLgYYGqnVEoZvmf9c2bVBpiOjYQ0c=",
          certificateSHA256: "NJ36QFjF4mMSOzmK55VXPE4TE8g/5o+TVWzV6AMbPH0=", source: debian),
        Certificate(
          name: "GlobalSign Root CA", role: "root (RSA 2048, 1998)", status: .current,
          spkiSHA256: "K87oWBWM9UZfyddvDfoxL+8lpNyoUB2ptGtn0fv6G2Q=",
          certificateSHA256: "69QQQOS7PsdCyeOB0x7ypBpItmhclufO88HfbNQzHJk=", source: debian),
        Certificate(
          name: "WE1", role: "issuing CA (ECDSA)", status: .current, spkiSHA256: nil, certificateSHA256: nil, source: notHere),
      ],
      issuing: ["WE1"],
      shapes: [
        Shape(above: ["GTS Root R4"], stores: "stores that carry GTS Root R4 (Debian 12 does)"),
        Shape(above: ["GlobalSign Root CA", "GTS Root R4"], stores: "stores that carry GlobalSign Root CA but not GTS Root R4"),
      ], issues: true),
    Hierarchy(
      name: "Sectigo DV RSA",
      certificates: [
        Certificate(
          name: "Sectigo Public Server Authentication Root R46", role: "root (RSA 4096)", status: .current,
          spkiSHA256: "Douxi77vs4G+Ib/BogbTFymEYq0QSFXwSgVCaZcI09Q=",
          certificateSHA256: "e7ZHpirurIi/JXqlItAf/qOV4KtFxz+T9lZU7DjyWgY=", source: debian),
        Certificate(
          name: "USERTrust RSA Certification Authority", role: "root (RSA 4096), cross-signs Root R46", status: .current,
          spkiSHA256: "x4QzPSC810K5/cMjb05Qm4k3Bw5zBn4lTdO/nEW/Td4=",
          certificateSHA256: "55PJsC/YqhPiHDEiisywgRlkO3SciYlksXRtRsPUy9I=", source: debian),
        Certificate(
          name: "Sectigo Public Server Authentication CA DV R36", role: "issuing CA (RSA)", status: .current, spkiSHA256: nil,
          certificateSHA256: nil, source: notHere),
      ],
      issuing: ["Sectigo Public Server Authentication CA DV R36"],
      shapes: [
        Shape(
          above: ["Sectigo Public Server Authentication Root R46"],
          stores: "stores that carry Sectigo Public Server Authentication Root R46 (Debian 12 does)"),
        Shape(
          above: ["USERTrust RSA Certification Authority", "Sectigo Public Server Authentication Root R46"],
          stores: "stores that carry USERTrust RSA Certification Authority but not Root R46"),
      ], issues: true),
    Hierarchy(
      name: "Sectigo DV ECDSA",
      certificates: [
        Certificate(
          name: "Sectigo Public Server Authentication Root E46", role: "root (ECDSA P-384)", status: .current,
          spkiSHA256: "sLVjNUaFYfW7n6EtgBeEpjOlcnBdNPMrZDRF36iwBdE=",
          certificateSHA256: "yQ8m8PsbQBiyIidRm1yitT4spbO+XPGO/hvvRzgMU4M=", source: debian),
        Certificate(
          name: "USERTrust ECC Certification Authority", role: "root (ECDSA P-384), cross-signs Root E46", status: .current,
          spkiSHA256: "ICGRfpgmOUXIWcQ/HXPLQTkFPEFPoDyjvH7ohhQpjzs=",
          certificateSHA256: "T/Rg1Uuchtq/vPxXEuBADSvtP7xNT72qhuBq3NKprXo=", source: debian),
        Certificate(
          name: "Sectigo Public Server Authentication CA DV E36", role: "issuing CA (ECDSA)", status: .current, spkiSHA256: nil,
          certificateSHA256: nil, source: notHere),
      ],
      issuing: ["Sectigo Public Server Authentication CA DV E36"],
      shapes: [
        Shape(
          above: ["Sectigo Public Server Authentication Root E46"],
          stores: "stores that carry Sectigo Public Server Authentication Root E46 (Debian 12 does)"),
        Shape(
          above: ["USERTrust ECC Certification Authority", "Sectigo Public Server Authentication Root E46"],
          stores: "stores that carry USERTrust ECC Certification Authority but not Root E46"),
      ], issues: true),
    Hierarchy(
      name: "GlobalSign Atlas DV (renamed every quarter)",
      certificates: [
        Certificate(
          name: "GlobalSign Root R46", role: "root (RSA 4096)", status: .current,
          spkiSHA256: "rn+WLLnmp9v3uDP7GPqbcaiRdd+UnCMrap73yz3yu/w=",
          certificateSHA256: "T6MSbY06EdHEhVpPgHy61s+RnTpaiLA76ixjctk8QMk=", source: debian),
        Certificate(
          name: "GlobalSign", role: "root GlobalSign Root CA - R3 (RSA 2048), cross-signs Root R46", status: .current,
          spkiSHA256: "cGuxAXyFXFkWm61cF4HPWX8S0srS9j0aSqN0k4AP+4A=",
          certificateSHA256: "y7Ui17fxJ61qAROGW98c1BAufQdZr2NafPRyDcljxTs=", source: debian),
        Certificate(
          name: "GlobalSign Atlas R46 DV TLS CA 2026 Q3", role: "issuing CA (RSA)", status: .retired, spkiSHA256: nil,
          certificateSHA256: nil, source: notHere),
        Certificate(
          name: "GlobalSign Atlas R46 DV TLS CA 2026 Q4", role: "issuing CA (RSA)", status: .current, spkiSHA256: nil,
          certificateSHA256: nil, source: notHere),
        Certificate(
          name: "GlobalSign Atlas R46 DV TLS CA 2027 Q1", role: "issuing CA (RSA), next quarter's name in GlobalSign's scheme",
          status: .backup, spkiSHA256: nil, certificateSHA256: nil, source: "not yet issued"),
      ],
      issuing: ["GlobalSign Atlas R46 DV TLS CA 2026 Q4", "GlobalSign Atlas R46 DV TLS CA 2027 Q1"],
      shapes: [
        Shape(above: ["GlobalSign Root R46"], stores: "stores that carry GlobalSign Root R46 (Debian 12 does)"),
        Shape(
          above: ["GlobalSign", "GlobalSign Root R46"], stores: "stores that carry GlobalSign Root CA - R3 but not Root R46"),
      ], issues: true),
    Hierarchy(
      name: "DigiCert Global G2",
      certificates: [
        Certificate(
          name: "DigiCert Global Root G2", role: "root (RSA 2048)", status: .current,
          spkiSHA256: "i7WTqTvh0OioIruIfFR4kMPnBqrS2rdiVPl/s2uC/CY=",
          certificateSHA256: "yzzLt2Ax5eATj43TmiP53kf/w15DwRRM6ifUalqxy18=", source: debian),
        Certificate(
          name: "DigiCert Global G2 TLS RSA SHA256 2020 CA1", role: "issuing CA (RSA)", status: .current, spkiSHA256: nil,
          certificateSHA256: nil, source: notHere),
      ],
      issuing: ["DigiCert Global G2 TLS RSA SHA256 2020 CA1"],
      shapes: [Shape(above: ["DigiCert Global Root G2"], stores: "stores that carry DigiCert Global Root G2 (Debian 12 does)")],
      issues: true),
  ]
}
