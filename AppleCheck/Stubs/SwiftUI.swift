// The slice of Apple's SwiftUI that Examples/TestCNPinningApp uses, for a type-check on Linux.
// Source: SwiftUI's documentation on developer.apple.com (documentation/swiftui/app, /scene,
// /windowgroup, /view, /viewbuilder, /scenebuilder, /state, /binding, /text, /button, /vstack,
// /textfield, /view/padding(_:_:), /edge/set, /horizontalalignment): the declarations as given
// there, without their availability and the overloads the example does not call. Bodies trap;
// only the signatures matter.
@_exported import Foundation

@MainActor @preconcurrency public protocol View {
  associatedtype Body: View
  @ViewBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

extension Never: View {
  public typealias Body = Never
  public var body: Never { fatalError() }
}

@MainActor @preconcurrency public protocol Scene {
  associatedtype Body: Scene
  @SceneBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

extension Never: Scene {}

@MainActor @preconcurrency public protocol App {
  associatedtype Body: Scene
  @SceneBuilder @MainActor @preconcurrency var body: Self.Body { get }
  @MainActor @preconcurrency init()
}

extension App {
  @MainActor @preconcurrency public static func main() { fatalError() }
}

@resultBuilder public struct SceneBuilder {
  public static func buildBlock<Content: Scene>(_ content: Content) -> Content { content }
}

@resultBuilder public struct ViewBuilder {
  public static func buildBlock() -> EmptyView { fatalError() }
  public static func buildBlock<Content: View>(_ content: Content) -> Content { content }
  public static func buildBlock<each Content: View>(_ content: repeat each Content) -> TupleView<(repeat each Content)> {
    fatalError()
  }
  public static func buildIf<Content: View>(_ content: Content?) -> Content? { content }
}

extension Optional: View where Wrapped: View {
  public typealias Body = Never
  public var body: Never { fatalError() }
}

public struct WindowGroup<Content: View>: Scene {
  public typealias Body = Never
  public var body: Never { fatalError() }
  public init(@ViewBuilder content: () -> Content) { fatalError() }
}

public struct EmptyView: View {
  public typealias Body = Never
  public var body: Never { fatalError() }
  public init() {}
}

public struct TupleView<T>: View {
  public typealias Body = Never
  public var body: Never { fatalError() }
  public var value: T
  public init(_ value: T) { self.value = value }
}

public struct Text: View, Equatable, Sendable {
  public typealias Body = Never
  public var body: Never { fatalError() }
  public init<S: StringProtocol>(_ content: S) { fatalError() }
  public init(verbatim content: String) { fatalError() }
}

public struct Button<Label: View>: View {
  public typealias Body = Never
  public var body: Never { fatalError() }
  public init(action: @escaping @MainActor () -> Void, @ViewBuilder label: () -> Label) { fatalError() }
}

extension Button where Label == Text {
  public init<S: StringProtocol>(_ title: S, action: @escaping @MainActor () -> Void) { fatalError() }
}

public struct TextField<Label: View>: View {
  public typealias Body = Never
  public var body: Never { fatalError() }
}

extension TextField where Label == Text {
  public init<S: StringProtocol>(_ title: S, text: Binding<String>) { fatalError() }
}

public struct HorizontalAlignment: Equatable, Sendable {
  public static let center = HorizontalAlignment()
  public static let leading = HorizontalAlignment()
}

public struct VStack<Content: View>: View {
  public typealias Body = Never
  public var body: Never { fatalError() }
  public init(alignment: HorizontalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> Content) {
    fatalError()
  }
}

public enum Edge: Int8, CaseIterable, Sendable {
  case top, leading, bottom, trailing
  public struct Set: OptionSet, Sendable {
    public let rawValue: Int8
    public init(rawValue: Int8) { self.rawValue = rawValue }
    public static let all = Set(rawValue: 15)
  }
}

extension View {
  @MainActor @preconcurrency public func padding(_ edges: Edge.Set = .all, _ length: CGFloat? = nil) -> some View {
    fatalError()
  }
}

public protocol DynamicProperty {}

@frozen @propertyWrapper public struct State<Value>: DynamicProperty {
  public init(wrappedValue value: Value) { fatalError() }
  public var wrappedValue: Value {
    get { fatalError() }
    nonmutating set { fatalError() }
  }
  public var projectedValue: Binding<Value> { fatalError() }
}

@frozen @propertyWrapper @dynamicMemberLookup public struct Binding<Value> {
  public init(get: @escaping @isolated(any) @Sendable () -> Value, set: @escaping @isolated(any) @Sendable (Value) -> Void) {
    fatalError()
  }
  public init(projectedValue: Binding<Value>) { self = projectedValue }
  public var wrappedValue: Value {
    get { fatalError() }
    nonmutating set { fatalError() }
  }
  public var projectedValue: Binding<Value> { self }
  public subscript<Subject>(dynamicMember keyPath: WritableKeyPath<Value, Subject>) -> Binding<Subject> { fatalError() }
}
