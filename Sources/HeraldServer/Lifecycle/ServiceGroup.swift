import HeraldHTTP
import Synchronization

/// Something long-lived the application runs from start to stop: the delivery worker, the
/// Expo receipt poller, the provider-token keeper, the broadcast runner, the webhook worker, the
/// stream heartbeats and expiry sweep, pruning. Hummingbird's `ServiceGroup` is the model.
protocol Service: Sendable {
    /// For the log.
    var name: String { get }
    /// Runs until the service is shut down.
    func run() async
    /// How ``run()`` is asked to return.
    var shutdown: ServiceShutdown { get }
}

/// How a service is asked to stop.
enum ServiceShutdown: Sendable {
    /// Its task is cancelled: a loop with nothing in hand.
    case cancel
    /// It is told to finish what it holds (sends in flight, a broadcast chunk) and return; its
    /// task is not cancelled, so that work is not cut short.
    case graceful(@Sendable () -> Void)
}

extension Service {
    var shutdown: ServiceShutdown { .cancel }
}

/// Runs services together: ``start()`` launches each in order, ``stop()`` shuts them down in
/// reverse order, each finished before the next is asked.
final class ServiceGroup: Sendable {
    private let services: [any Service]
    private let logger: Logger
    private let running = Mutex<[Task<Void, Never>]>([])

    init(_ services: [any Service], logger: Logger) {
        self.services = services
        self.logger = logger
    }

    var names: [String] { services.map(\.name) }

    func start() {
        let tasks = services.map { service in Task.detached { await service.run() } }
        running.withLock { running in
            precondition(running.isEmpty, "the services are already running")
            running = tasks
        }
    }

    /// Returns once every service has returned from ``Service/run()``. Idempotent.
    func stop() async {
        let tasks = running.withLock { running in
            defer { running = [] }
            return running
        }
        for (service, task) in zip(services, tasks).reversed() {
            switch service.shutdown {
            case .cancel: task.cancel()
            case .graceful(let finish): finish()
            }
            await task.value
            logger.debug("service stopped", metadata: ["service": service.name])
        }
    }
}

/// A service that does `work` every `interval` (first after one interval, or at once when
/// `atStart`) until it is cancelled.
struct PeriodicService: Service {
    let name: String
    let interval: Duration
    var atStart = false
    let work: @Sendable () async -> Void

    func run() async {
        if atStart { await work() }
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: interval)
            } catch {
                return
            }
            await work()
        }
    }
}

// MARK: The application's services

/// The delivery worker, after the APNs provider tokens are shared: the first send goes out with
/// the tokens the other servers on this database use.
struct DeliveryService: Service {
    let worker: DeliveryWorker
    let tokenKeepers: [ProviderTokenKeeper]
    var name: String { "delivery worker" }
    var shutdown: ServiceShutdown { .graceful(worker.stop) }

    func run() async {
        for keeper in tokenKeepers { await keeper.refresh() }
        await worker.run()
    }
}

extension ProviderTokenKeeper: Service {
    var name: String { "APNs provider-token keeper" }
}

extension ExpoReceiptPoller: Service {
    var name: String { "Expo receipt poller" }
    var shutdown: ServiceShutdown { .graceful(stop) }
}

extension BroadcastRunner: Service {
    var name: String { "broadcast runner" }
    var shutdown: ServiceShutdown { .graceful(stop) }
}

extension WebhookWorker: Service {
    var name: String { "webhook worker" }
    var shutdown: ServiceShutdown { .graceful(stop) }
}
