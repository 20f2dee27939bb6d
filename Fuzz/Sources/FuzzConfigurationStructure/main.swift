import FuzzDriver
import FuzzKit

// The configuration loaders on generated documents (ConfigurationDocuments): binary property
// list object tables, XML property lists and JSON.
runFuzzing { bytes in
  var input = FuzzInput(bytes)
  Oracles.configuration(ConfigurationDocuments.generate(&input))
}
