import FuzzDriver

runFuzzing(fuzzCertificate)
