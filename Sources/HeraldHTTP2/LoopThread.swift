import CNGHTTP2

#if canImport(Glibc)
    import Glibc
#endif

/// Starts and joins the event-loop threads, each named (the sandbox's `h2-PORT-N`, which tests
/// count; the push client's `herald-h2c`) for profiles and `top -H`.
package enum LoopThread {
    private final class Body {
        let name: String
        let run: () -> Void
        init(name: String, run: @escaping () -> Void) {
            self.name = name
            self.run = run
        }
    }

    /// Runs `run` on a new thread; a system out of threads is a failure of the process.
    package static func start(name: String, _ run: sending @escaping () -> Void) -> pthread_t {
        let body = Unmanaged.passRetained(Body(name: name, run: run)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { raw in
                guard let raw else { return nil }
                let body = Unmanaged<Body>.fromOpaque(raw).takeRetainedValue()
                _ = pthread_setname_np(pthread_self(), body.name)
                body.run()
                return nil
            }, body)
        precondition(result == 0, "pthread_create failed with \(result)")
        return thread
    }

    /// Lets a thread that nobody joins free itself when it ends.
    package static func detach(_ thread: pthread_t) {
        _ = pthread_detach(thread)
    }

    /// Waits for a thread that has already signalled its end (so this returns at once).
    package static func join(_ thread: pthread_t) {
        _ = pthread_join(thread, nil)
    }
}
