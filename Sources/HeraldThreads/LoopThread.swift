import CThreads

#if canImport(Glibc)
    import Glibc
#endif

/// Starts and joins the threads Herald runs loops on, each named (the sandbox's `h2-PORT-N`, which
/// tests count; the push client's `herald-h2c`, the streams' `herald-streams`, PostgreSQL's
/// listener) for profiles and `top -H`. The one way the server makes a thread of its own: the
/// server does not link Foundation, whose `Thread` this replaces.
package enum LoopThread {
    private final class Body {
        let name: String
        let run: () -> Void
        init(name: String, run: @escaping () -> Void) {
            self.name = name
            self.run = run
        }
    }

    /// Runs `run` on a new thread, with a stack of `stackSize` bytes when given (the system's
    /// default otherwise); a system out of threads is a failure of the process.
    package static func start(name: String, stackSize: Int? = nil, _ run: sending @escaping () -> Void) -> pthread_t {
        let body = Unmanaged.passRetained(Body(name: name, run: run)).toOpaque()
        var thread = pthread_t()
        var attributes = pthread_attr_t()
        precondition(pthread_attr_init(&attributes) == 0, "pthread_attr_init failed")
        defer { pthread_attr_destroy(&attributes) }
        if let stackSize {
            precondition(pthread_attr_setstacksize(&attributes, stackSize) == 0, "bad stack size \(stackSize)")
        }
        let result = pthread_create(
            &thread, &attributes,
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
