import CCurl

/// The one thread that drives a client's multi handle: it adds queued transfers, runs them with
/// `curl_multi_perform`, hands each finished one back to its caller, and sleeps in
/// `curl_multi_poll` until a socket or the mailbox needs it.
///
/// `@unchecked Sendable`: it is handed to its thread once, and only that thread touches it.
final class TransferLoop: @unchecked Sendable {
    private let multi: CurlMulti
    private let mailbox: TransferMailbox
    /// Transfers added to the multi handle, by the address of their easy handle.
    private var active: [Int: Transfer] = [:]
    /// The keys of active transfers, by transfer id.
    private var keys: [Int: Int] = [:]

    private init(multi: CurlMulti, mailbox: TransferMailbox) {
        self.multi = multi
        self.mailbox = mailbox
    }

    /// Runs on the calling thread until the client closes, then fails what is left, frees every
    /// handle and tells the mailbox.
    static func run(_ mailbox: TransferMailbox) {
        if let multi = mailbox.multiForLoop() {
            TransferLoop(multi: multi, mailbox: mailbox).run()
        }
        mailbox.finished()
    }

    private func run() {
        while true {
            let mail = mailbox.take()
            if mail.closing {
                stop(failing: mail.queued)
                return
            }
            start(mail.queued, skipping: Set(mail.cancelled))
            for id in mail.cancelled { cancel(id) }
            do {
                try multi.perform()
                while let (easy, result) = multi.nextFinished() { finish(easy, result) }
                try multi.poll(milliseconds: 1000)
            } catch {
                failAll(error)
            }
        }
    }

    private func start(_ transfers: [Transfer], skipping cancelled: Set<Int>) {
        for transfer in transfers {
            guard !cancelled.contains(transfer.id) else {
                transfer.resume(.failure(CancellationError()))
                continue
            }
            do {
                try multi.add(transfer.easy)
                active[transfer.key] = transfer
                keys[transfer.id] = transfer.key
            } catch {
                transfer.resume(.failure(error))
            }
        }
    }

    private func cancel(_ id: Int) {
        guard let key = keys.removeValue(forKey: id), let transfer = active.removeValue(forKey: key) else { return }
        try? multi.remove(transfer.easy)
        transfer.resume(.failure(CancellationError()))
    }

    private func finish(_ easy: UnsafeMutableRawPointer, _ result: CURLcode) {
        guard let transfer = active.removeValue(forKey: Int(bitPattern: easy)) else { return }
        keys[transfer.id] = nil
        try? multi.remove(transfer.easy)
        mailbox.connectionsOpened.add((try? transfer.easy.info(CURLINFO_NUM_CONNECTS)) ?? 0, ordering: .relaxed)
        transfer.finish(result)
    }

    /// A failed multi call: every transfer in flight fails with it, so none is lost silently.
    private func failAll(_ error: any Error) {
        for transfer in active.values {
            try? multi.remove(transfer.easy)
            transfer.resume(.failure(error))
        }
        active.removeAll()
        keys.removeAll()
    }

    private func stop(failing queued: [Transfer]) {
        let closed = HTTP2ClientError(kind: .closed, code: 0, message: "the HTTP/2 client was shut down")
        failAll(closed)
        for transfer in queued + mailbox.stopped() { transfer.resume(.failure(closed)) }
    }
}
