import Foundation
import HeraldModel

/// Values shown while their save (or the OS dialog) runs; each row goes back to its saved
/// value when its entry is cleared.
struct PendingPreferenceSaves: Equatable {
    /// The master switch's new value.
    var push: Bool?
    /// Category id to its new value.
    var categories: [String: Bool] = [:]
    /// Source id to its new switch value (on: not muted).
    var sources: [String: Bool] = [:]
    /// The new quiet-hours window; `.some(nil)` while turning them off.
    var quietHours: QuietHours??
    /// The new digest settings.
    var digest: DigestSettings?
    /// The new snooze end; `.some(nil)` while ending the snooze.
    var snooze: Date??
}
