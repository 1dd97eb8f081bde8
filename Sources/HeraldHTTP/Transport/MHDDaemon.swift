import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Owns the libmicrohttpd daemon handle and the listening socket; stops the daemon in
/// `deinit` if nobody did.
final class MHDDaemon: @unchecked Sendable {
    // Safe: `handle` is immutable; quiesce and stop run at most once, guarded by the `lifecycle` Mutex.

    let core: ServerCore
    private let handle: OpaquePointer
    private let listenFD: Int32

    private struct Lifecycle {
        var quiesced = false
        var stopped = false
    }

    private let lifecycle = Mutex(Lifecycle())

    init(core: ServerCore, listen: ListenSocket) throws(HTTPServerError) {
        let configuration = core.configuration
        // MHD_USE_TURBO: the library closes a connection's descriptor without shutting the socket
        // down first, so an event stream's socket lives on in ``StreamSockets`` (it also tries
        // a new connection's first read before waiting on epoll, and makes sockets close-on-exec).
        var flags =
            MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue
            | MHD_USE_TURBO.rawValue
        if listen.isIPv6 { flags |= MHD_USE_IPv6.rawValue }
        let coreRef = Unmanaged.passUnretained(core).toOpaque()
        let timeoutSeconds = configuration.idleTimeoutSeconds
        var options: [MHD_OptionItem] = [
            MHD_OptionItem(
                option: MHD_OPTION.EXTERNAL_LOGGER, value: unsafeBitCast(libraryLoggerPointer, to: Int.self),
                ptr_value: coreRef),
            MHD_OptionItem(option: MHD_OPTION.LISTEN_SOCKET, value: Int(listen.fd), ptr_value: nil),
            MHD_OptionItem(option: MHD_OPTION.CONNECTION_LIMIT, value: core.connectionLimit, ptr_value: nil),
            MHD_OptionItem(
                option: MHD_OPTION.PER_IP_CONNECTION_LIMIT, value: max(0, configuration.connectionsPerAddress),
                ptr_value: nil),
            MHD_OptionItem(
                option: MHD_OPTION.NOTIFY_CONNECTION, value: unsafeBitCast(connectionNotifiedPointer, to: Int.self),
                ptr_value: coreRef),
            MHD_OptionItem(option: MHD_OPTION.CONNECTION_TIMEOUT, value: Int(timeoutSeconds), ptr_value: nil),
            MHD_OptionItem(
                option: MHD_OPTION.NOTIFY_COMPLETED, value: unsafeBitCast(requestCompletedPointer, to: Int.self),
                ptr_value: coreRef),
            MHD_OptionItem(
                option: MHD_OPTION.URI_LOG_CALLBACK, value: unsafeBitCast(requestLineReadPointer, to: Int.self),
                ptr_value: coreRef),
            MHD_OptionItem(
                option: MHD_OPTION.UNESCAPE_CALLBACK, value: unsafeBitCast(identityUnescaperPointer, to: Int.self),
                ptr_value: nil),
        ]
        if configuration.connectionMemoryLimit > 0 {
            options.append(
                MHD_OptionItem(
                    option: MHD_OPTION.CONNECTION_MEMORY_LIMIT, value: configuration.connectionMemoryLimit,
                    ptr_value: nil))
        }
        if configuration.threadPoolSize > 1 {
            options.append(
                MHD_OptionItem(option: MHD_OPTION.THREAD_POOL_SIZE, value: configuration.threadPoolSize, ptr_value: nil)
            )
        }
        options.append(MHD_OptionItem(option: MHD_OPTION.END, value: 0, ptr_value: nil))

        let started = options.withUnsafeMutableBufferPointer { buffer in
            herald_mhd_start_daemon(flags, acceptPolicy, accessHandler, coreRef, buffer.baseAddress)
        }
        do {
            handle = try MHD.check(started, "MHD_start_daemon")
        } catch {
            close(listen.fd)
            throw HTTPServerError(.daemonFailed, "libmicrohttpd did not start (see the log for its reason).")
        }
        self.core = core
        self.listenFD = listen.fd
    }

    deinit {
        stop()
    }

    /// Stops accepting connections; connections already open carry on. New connection
    /// attempts are refused from now on.
    func quiesce() {
        let first = lifecycle.withLock { lifecycle -> Bool in
            guard !lifecycle.quiesced, !lifecycle.stopped else { return false }
            lifecycle.quiesced = true
            return true
        }
        guard first else { return }
        _ = MHD_quiesce_daemon(handle)
        // The daemon no longer polls the socket but it must stay open until the daemon
        // stops; shutting it down makes the kernel refuse new connections meanwhile.
        _ = shutdown(listenFD, Int32(SHUT_RDWR))
    }

    var isQuiesced: Bool {
        lifecycle.withLock { $0.quiesced }
    }

    /// Stops now: answers running handlers with 503, ends streams, resumes every
    /// suspended connection (MHD requires that), then stops the daemon and closes the
    /// socket. Idempotent.
    func stop() {
        let alreadyStopped = lifecycle.withLock { $0.stopped }
        guard !alreadyStopped else { return }
        core.beginStopping()
        quiesce()
        core.forceCompleteHandlers()
        core.finishStreams()
        core.resumeEverything(waitingUpTo: .seconds(1))
        lifecycle.withLock { lifecycle in
            guard !lifecycle.stopped else { return }
            lifecycle.stopped = true
            MHD_stop_daemon(handle)
        }
        close(listenFD)
        core.sockets.stop()
    }
}

// Callbacks as C function pointers, for option items that carry them as integers.
private let libraryLoggerPointer: MHD_LogCallback = libraryLogger
private let requestCompletedPointer: MHD_RequestCompletedCallback = requestCompletedCallback
private let requestLineReadPointer:
    @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer? =
        requestLineRead
private let connectionNotifiedPointer: MHD_NotifyConnectionCallback = connectionNotified
private let identityUnescaperPointer:
    @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutablePointer<CChar>?) -> Int = identityUnescaper
