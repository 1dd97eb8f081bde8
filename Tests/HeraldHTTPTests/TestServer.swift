import Foundation
import HeraldHTTPTestSupport
import HeraldTestSupport
import Synchronization
import Testing

@testable import HeraldHTTP

/// A server on a free loopback port for one test.
struct TestServer: Sendable {
    let server: HTTPServer
    let client: LoopbackHTTPClient
    let logs: CapturingLogHandler

    init(
        configure: (inout HTTPServerConfiguration) -> Void = { _ in },
        routes: (inout Router) -> Void
    ) throws {
        var router = Router()
        routes(&router)
        try self.init(responder: router, configure: configure)
    }

    init(responder: any Responder, configure: (inout HTTPServerConfiguration) -> Void = { _ in }) throws {
        var configuration = HTTPServerConfiguration(port: 0)
        configure(&configuration)
        logs = CapturingLogHandler()
        server = HTTPServer(
            configuration: configuration, responder: responder, logger: logs.logger(label: "test-http", level: .debug))
        try server.start()
        client = LoopbackHTTPClient(port: server.port)
    }

    func stop() async {
        await server.stop(gracePeriod: .seconds(5))
    }
}

/// Runs `body` with a started server and always stops it.
func withServer(
    configure: (inout HTTPServerConfiguration) -> Void = { _ in },
    routes: (inout Router) -> Void,
    _ body: (TestServer) async throws -> Void
) async throws {
    let server = try TestServer(configure: configure, routes: routes)
    do {
        try await body(server)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}

/// Collects values from several tasks.
final class Collector<Value: Sendable>: Sendable {
    private let storage = Mutex<[Value]>([])
    init() {}
    func append(_ value: Value) { storage.withLock { $0.append(value) } }
    var values: [Value] { storage.withLock { $0 } }
}

/// A one-shot signal between tasks, without sleeping.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
    init() {}

    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    var isOpen: Bool { state.withLock { $0.open } }
}

func threadCount() -> Int {
    guard let status = try? procFile("/proc/self/status") else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix("Threads:") {
        return Int(line.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces)) ?? -1
    }
    return -1
}
