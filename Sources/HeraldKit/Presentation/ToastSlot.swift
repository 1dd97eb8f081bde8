import Observation

/// The one toast a screen shows: a new one replaces the old, and each goes once its duration
/// has passed on the injected clock, or when dismissed.
@MainActor @Observable final class ToastSlot {
    private(set) var toast: Toast?
    @ObservationIgnored private var timer: Task<Void, Never>?
    private let clock: HeraldClock

    init(clock: HeraldClock) {
        self.clock = clock
    }

    /// Shows `toast` for its duration, in place of any other.
    func show(_ toast: Toast) {
        timer?.cancel()
        self.toast = toast
        timer = clock.scheduled(after: toast.duration) { [weak self] in self?.dismiss() }
    }

    /// Takes the toast down now.
    func dismiss() {
        timer?.cancel()
        timer = nil
        toast = nil
    }
}
