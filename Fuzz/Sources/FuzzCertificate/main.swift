import FuzzDriver
import FuzzKit

// The certificate reader on raw bytes (DER as found, or anything at all).
runFuzzing(Oracles.certificate)
