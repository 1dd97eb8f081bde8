import HeraldKit
import HeraldKitTestSupport
import HeraldModel

/// A push router over a recording navigator, in-memory storage, a scripted launch response,
/// and the inbox backend answering the opens (notifications `n-0` to `n-9` are the user's).
@MainActor final class PushRouterHarness {
    let clock: TestClock
    let navigator = RecordingNavigator()
    let backend: FakeInboxBackend
    let storage: InMemoryKeyValueStore
    let launch: LaunchResponse
    let router: PushRouter

    /// - Parameter holdsLaunchRead: reading the launch response waits for
    ///   ``LaunchResponse/answer()``.
    init(
        launchTap: PushTap? = nil, storage: InMemoryKeyValueStore = InMemoryKeyValueStore(),
        holdsLaunchRead: Bool = false, actions: [PushAction] = []
    ) {
        self.storage = storage
        let launch = LaunchResponse(launchTap, holds: holdsLaunchRead)
        self.launch = launch
        let clock = TestClock()
        self.clock = clock
        backend = FakeInboxBackend((0...9).map { notification("n-\($0)") }, now: { clock.now })
        var dependencies = HeraldDependencies.failing
        dependencies.api = backend.api(serving: [.markOpened])
        dependencies.navigator = navigator.navigator
        dependencies.storage = storage.store
        router = PushRouter(
            dependencies: dependencies, catalog: .standard, allowedDeepLinkPrefixes: [], actions: actions,
            lastNotificationResponse: { await launch.read() })
    }

    /// The notifications reported opened, in the order the calls arrived, once the main actor
    /// ran the reports the taps started.
    func opened() async -> [String] {
        await clock.settle()
        return backend.calls(to: .markOpened).compactMap {
            if case .markOpened(let id) = $0 { id } else { nil }
        }
    }
}

/// The OS's last notification response; counts how often it is read, and can keep a read
/// waiting.
@MainActor final class LaunchResponse {
    let tap: PushTap?
    private(set) var reads = 0
    private let holds: Bool
    private var held: CheckedContinuation<Void, Never>?
    private var readStarted: CheckedContinuation<Void, Never>?

    init(_ tap: PushTap?, holds: Bool) {
        self.tap = tap
        self.holds = holds
    }

    func read() async -> PushTap? {
        reads += 1
        if holds {
            await withCheckedContinuation { continuation in
                held = continuation
                readStarted?.resume()
                readStarted = nil
            }
        }
        return tap
    }

    /// Returns once a read is waiting for ``answer()``.
    func waitForRead() async {
        guard held == nil else { return }
        await withCheckedContinuation { readStarted = $0 }
    }

    /// Ends the waiting read.
    func answer() {
        held?.resume()
        held = nil
    }
}
