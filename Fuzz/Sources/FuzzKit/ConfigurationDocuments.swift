/// Configuration documents from the input: the first byte picks the format (binary property
/// list, XML property list, JSON), the rest drives that format's generator.
public enum ConfigurationDocuments {
  public static func generate(_ input: inout FuzzInput) -> [UInt8] {
    switch input.below(3) {
    case 0: return BinaryPlistGenerator.generate(&input)
    case 1: return TextWriter.xmlPropertyList(ConfigurationShape.document(&input), &input)
    default: return TextWriter.json(ConfigurationShape.document(&input), &input)
    }
  }
}
