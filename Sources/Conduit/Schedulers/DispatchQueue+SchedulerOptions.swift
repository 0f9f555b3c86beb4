import Dispatch

extension DispatchQueue {
  /// Options that affect the operation of the dispatch queue scheduler.
  ///
  /// ```swift
  /// let group = DispatchGroup()
  /// queue.schedule(options: .init(qos: .userInitiated, group: group)) { work() }
  /// group.wait()
  /// ```
  ///
  /// As in Combine, only ``DispatchQueue/schedule(options:_:)`` uses ``group``: the delayed and
  /// repeating forms take the quality of service and the flags alone.
  public struct SchedulerOptions: @unchecked Sendable {
    // Sendable by its parts: `DispatchQoS` and `DispatchGroup` are, and `DispatchWorkItemFlags`
    // is an option set over an integer that Dispatch on Linux does not mark as Sendable.

    /// The dispatch queue quality of service.
    public var qos: DispatchQoS

    /// The dispatch queue work item flags.
    public var flags: DispatchWorkItemFlags

    /// The dispatch group, if any, that should be used for performing actions.
    public var group: DispatchGroup?

    /// Creates a dispatch queue scheduler options instance with the given options.
    ///
    /// - Parameters:
    ///   - qos: The quality of service of the actions; `.unspecified` by default.
    ///   - flags: The work item flags of the actions; none by default.
    ///   - group: The group that an action scheduled at once enters until it has run.
    public init(qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [], group: DispatchGroup? = nil) {
      self.qos = qos
      self.flags = flags
      self.group = group
    }
  }
}
