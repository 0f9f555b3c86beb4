/// The locked state of a subscription whose decisions are a state machine's: the machine, and
/// the downstream, kept beside it so that the call that takes delivery picks both up in one
/// critical section.
@usableFromInline
struct MachineAndDownstream<Machine, Downstream> {
  @usableFromInline
  var machine: Machine
  /// Until the completion goes out, or the downstream cancels.
  @usableFromInline
  var downstream: Downstream?

  @inlinable
  init(machine: Machine, downstream: Downstream) {
    self.machine = machine
    self.downstream = downstream
  }
}
