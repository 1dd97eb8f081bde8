import Foundation
import HeraldHTTPTestSupport
import HeraldTestSupport
import Testing

@testable import HeraldHTTP

/// Graceful stop.
@Suite struct ShutdownTests {
    @Test func stopWaitsForAnInFlightRequestThenRefusesConnections() async throws {
        let entered = Gate()
        let release = Gate()
        let server = try TestServer { router in
            router.add(.GET, "/slow") { _, _ in
                entered.open()
                await release.wait()
                return .text("finished")
            }
        }
        let client = server.client
        let inFlight = Task { try await client.request("GET", "/slow") }
        await entered.wait()

        let stopped = Gate()
        let stopping = Task {
            await server.server.stop(gracePeriod: .seconds(30))
            stopped.open()
        }
        // While stopping, new connections are refused and the slow request is still running.
        try await eventually("the server refuses connections") { server.server.isRefusingConnections }
        #expect(server.server.core?.handlersInFlight == 1)
        let early = await #expect(throws: LoopbackClientError.self) {
            _ = try await client.request("GET", "/slow")
        }
        #expect(early?.isConnectionRefused == true, "\(String(describing: early))")
        #expect(!stopped.isOpen)

        release.open()
        let response = try await inFlight.value
        #expect(response.status == 200)
        #expect(response.text == "finished")
        await stopping.value

        let late = await #expect(throws: LoopbackClientError.self) {
            _ = try await client.request("GET", "/slow")
        }
        #expect(late?.isConnectionRefused == true)
    }

    @Test func stopAnswers503WhenTheGracePeriodEnds() async throws {
        let entered = Gate()
        let cancelled = Gate()
        let server = try TestServer { router in
            router.add(.GET, "/stuck") { _, _ in
                entered.open()
                do {
                    try await Task.sleep(for: .seconds(60))
                } catch {
                    cancelled.open()
                    throw error
                }
                return .text("never")
            }
        }
        let client = server.client
        let inFlight = Task { try await client.request("GET", "/stuck") }
        await entered.wait()
        await server.server.stop(gracePeriod: .milliseconds(50))
        let response = try await inFlight.value
        #expect(response.status == 503)
        #expect(response.errorCode == "shutting_down")
        await cancelled.wait()
    }

    @Test func stopFinishesOpenStreams() async throws {
        let streams = Collector<ResponseStream>()
        let server = try TestServer(routes: StreamingTests.streamRoutes(streams))
        let connection = try await server.client.openStream("/events")
        let stream = try #require(streams.values.first)
        let closed = Gate()
        stream.onClose { closed.open() }
        stream.send(ServerSentEvent(data: "one"))
        #expect(try await connection.next() == SSEEvent(data: "one"))

        await server.server.stop(gracePeriod: .seconds(5))
        await closed.wait()
        #expect(try await connection.next() == nil)
        #expect(!stream.write([1]))
    }

    @Test func releasingARunningServerStopsIt() async throws {
        let port: Int
        do {
            let streams = Collector<ResponseStream>()
            let server = try TestServer(routes: StreamingTests.streamRoutes(streams))
            port = server.server.port
            let connection = try await server.client.openStream("/events")
            #expect(connection.status == 200)
            connection.close()
        }
        let client = LoopbackHTTPClient(port: port)
        let error = await #expect(throws: LoopbackClientError.self) {
            _ = try await client.request("GET", "/events")
        }
        #expect(error?.isConnectionRefused == true)
    }

    @Test func signalWaitResolvesOnTheSignal() async throws {
        let installed = Gate()
        let waiter = Task { await SignalHandling.waitForSignal([SIGUSR2]) { installed.open() } }
        await installed.wait()
        kill(getpid(), SIGUSR2)
        #expect(await waiter.value == SIGUSR2)
    }
}
