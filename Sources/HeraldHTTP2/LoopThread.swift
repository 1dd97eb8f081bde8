import CNGHTTP2

#if canImport(Glibc)
    import Glibc
#endif

/// Starts and joins the event-loop threads (named `h2-PORT-N`, which tests count).
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

    /// Waits for a thread that has already signalled its end (so this returns at once).
    package static func join(_ thread: pthread_t) {
        _ = pthread_join(thread, nil)
    }
}
