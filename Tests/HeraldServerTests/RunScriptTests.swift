import Foundation
import HeraldHTTPTestSupport
import HeraldTestSupport
import Synchronization
import Testing

/// `make run`'s script (scripts/run-dev.sh) as a newcomer meets it, on the debug build: the
/// sandbox starts beside the server, the printed key and token work, `herald send` makes a push
/// the sandbox accepts, and SIGTERM stops both.
@Suite("make run", .serialized)
struct RunScriptTests {
    @Test("run-dev.sh: the printed lines send a push that the APNs, FCM and Expo sandboxes accept; SIGTERM stops both")
    func newcomerSendsAPush() async throws {
        let scratch = try TemporaryDirectory("herald-run")
        defer { scratch.remove() }
        let directory = scratch.path
        let port = try LoopbackPort.unused()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/run-dev.sh").path
        let run = try ChildProcess.spawn(
            "/usr/bin/env",
            [
                "HERALD_BIN=\(HeraldExecutable.url.path)", "HERALD_PORT=\(port)",
                "HERALD_DATABASE_URL=sqlite:\(directory)/herald.db", "HERALD_SANDBOX_PORT=0",
                "HERALD_SANDBOX_STATE_DIR=\(directory)/sandbox", "/bin/bash", script,
            ])
        let output = Self.collect(run.standardOutput)
        let errors = Self.collect(run.standardError)

        let client = LoopbackHTTPClient(port: port)
        try await eventually("the server answers /healthz", within: .seconds(30)) {
            (try? await client.request("GET", "/healthz").status) == 200
        }
        let printed = output.text.withLock { $0 }
        let key = try #require(Self.value(after: "Publisher API key:", in: printed), "\(printed)")
        let token = try #require(Self.line(after: "User token (dev-user, 24 h):", in: printed), "\(printed)")
        let environment = try SandboxProcesses.readEnvironmentFile(directory + "/sandbox/herald.env")
        let sandboxURL = try #require(environment["HERALD_APNS_BASE_URL"])
        let caFile = try #require(environment["HERALD_APNS_CA_FILE"])
        #expect(printed.contains("sandbox (APNs, FCM, Expo) on \(sandboxURL)"))
        // The printed console URL serves the console, and the printed key signs in to it.
        let consoleLine = try #require(Self.value(after: "Console:", in: printed), "\(printed)")
        #expect(consoleLine.split(separator: " ").first == "http://127.0.0.1:\(port)/console")
        #expect(try await client.request("GET", "/console").status == 200)
        let signIn = try await client.request(
            "POST", "/console/session", headers: [("Content-Type", "application/json")],
            body: Array(#"{"apiKey":"\#(key)"}"#.utf8))
        #expect(signIn.status == 201, "\(signIn.text)")

        // The printed device registrations, as printed: one device per provider.
        let registrations = printed.split(separator: "\n").compactMap { line -> String? in
            guard let start = line.range(of: "-d '")?.upperBound, let end = line.lastIndex(of: "'"), start < end
            else { return nil }
            return String(line[start..<end])
        }
        try #require(registrations.count == 3, "\(printed)")
        var devices: [String] = []
        for body in registrations {
            let registered = try await client.request(
                "POST", "/v1/me/devices",
                headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
                body: Array(body.utf8))
            #expect(registered.status == 200, "\(body): \(registered.text)")
            devices.append(try #require(registered.object["token"] as? String))
        }
        _ = try await HeraldExecutable.run([
            "send", "--url", "http://127.0.0.1:\(port)", "--api-key", key, "--user", "dev-user", "--type",
            "order.shipped", "--title", "Your order shipped", "--body", "Arrives Friday",
        ])
        for (device, provider) in zip(devices, ["apns", "fcm", "expo"]) {
            var accepted = ""
            try await eventually("the \(provider) sandbox lists the push", within: .seconds(30)) {
                accepted = try await ChildProcess.run(
                    "/usr/bin/curl", ["-sS", "--cacert", caFile, sandboxURL + "/admin/\(provider)/accepted"]
                ).stdout
                return accepted.contains(device)
            }
            #expect(accepted.contains("Your order shipped"), "\(provider): \(accepted)")
        }

        run.send(SIGTERM)
        #expect(await run.exit() == .exited(0), "\(errors.text.withLock { $0 })")
        let log = errors.text.withLock { $0 }
        #expect(log.contains("herald stopped"), "\(log)")
        #expect(log.contains("herald sandbox stopped"), "the sandbox outlived the script: \(log)")
    }

    // MARK: Support

    /// Everything `handle` yields, gathered on a thread of its own.
    private static func collect(_ handle: FileHandle?) -> CollectedOutput {
        let output = CollectedOutput()
        guard let handle else { return output }
        Thread.detachNewThread {
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                output.text.withLock { $0 += String(decoding: chunk, as: UTF8.self) }
            }
        }
        return output
    }

    /// The rest of the line that starts (after spaces) with `label`, trimmed.
    private static func value(after label: String, in text: String) -> String? {
        text.split(separator: "\n").lazy.map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.hasPrefix(label) }
            .map { $0.dropFirst(label.count).trimmingCharacters(in: .whitespaces) }
    }

    /// The line after the one holding `label`, trimmed.
    private static func line(after label: String, in text: String) -> String? {
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let index = lines.firstIndex(where: { $0.hasPrefix(label) }), index + 1 < lines.count else { return nil }
        return lines[index + 1]
    }

}

/// What a child wrote so far.
private final class CollectedOutput: Sendable {
    let text = Mutex("")
}
