/// How many PostgreSQL connections a process holds and how long a call waits for one.
public struct PostgresPoolSettings: Sendable, Equatable {
    /// The pool sizes a server accepts.
    public static let sizeRange = 1...100

    /// Connections open at most; a call made while every one is busy waits for one to be free.
    /// Connections are opened as calls need them, not up front.
    public var size: Int
    /// Longest wait for a free connection; past it the call fails with
    /// ``StoreError/Code/unavailable`` instead of queueing without end.
    public var checkoutTimeout: Duration
    /// Longest wait, in whole seconds, for a new connection to be made (libpq's
    /// `connect_timeout`, which counts 2 as its least); a `connect_timeout` in the URL wins.
    public var connectTimeoutSeconds: Int

    public init(size: Int = 8, checkoutTimeout: Duration = .seconds(5), connectTimeoutSeconds: Int = 5) {
        precondition(Self.sizeRange.contains(size), "a pool holds 1 to 100 connections")
        self.size = size
        self.checkoutTimeout = checkoutTimeout
        self.connectTimeoutSeconds = connectTimeoutSeconds
    }
}
