import FuzzDriver
import FuzzKit

// The configuration loaders on raw bytes: any file an app might be handed.
runFuzzing(Oracles.configuration)
