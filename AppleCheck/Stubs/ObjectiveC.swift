// Associated objects from Apple's <objc/runtime.h> as the Swift overlay imports them
// (developer.apple.com/documentation/objectivec/objc_associationpolicy and
// objc_setassociatedobject(_:_:_:_:)), for a type-check on Linux.
public enum objc_AssociationPolicy: UInt, @unchecked Sendable {
  case OBJC_ASSOCIATION_ASSIGN = 0
  case OBJC_ASSOCIATION_RETAIN_NONATOMIC = 1
  case OBJC_ASSOCIATION_COPY_NONATOMIC = 3
  case OBJC_ASSOCIATION_RETAIN = 769
  case OBJC_ASSOCIATION_COPY = 771
}

public func objc_getAssociatedObject(_ object: Any, _ key: UnsafeRawPointer) -> Any? { fatalError() }
public func objc_setAssociatedObject(_ object: Any, _ key: UnsafeRawPointer, _ value: Any?, _ policy: objc_AssociationPolicy) {
  fatalError()
}
