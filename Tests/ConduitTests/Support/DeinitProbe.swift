import Conduit

/// An object that runs `onDeinit` in its `deinit`: a value, or what a closure captures, that
/// calls back into the pipeline it is let go of by.
final class DeinitProbe {
  let onDeinit: () -> Void

  init(onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }

  deinit { onDeinit() }
}
