/// Switch values shown while their save (or the OS dialog) runs; each switch goes back to
/// its saved value when its entry is cleared.
struct PendingPreferenceSaves: Equatable {
    /// The master switch's new value.
    var push: Bool?
    /// Category id to its new value.
    var categories: [String: Bool] = [:]
}
