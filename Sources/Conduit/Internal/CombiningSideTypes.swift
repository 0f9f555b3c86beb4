import Synchronization

/// The `CombiningSideLink` of an upstream of `Input` values. Never instantiated.
@usableFromInline
enum CombiningSideTypes<Parent: CombiningLink, Input>: CombiningSideLink {}
