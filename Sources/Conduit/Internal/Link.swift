/// The `OperatorLink` of a subscriber that receives `Input` and `Failure` and sends on to
/// `Downstream`. Never instantiated.
@usableFromInline
enum Link<Input, Failure: Error, Downstream: Subscriber>: OperatorLink {}
