/// How many PostgreSQL connections a process holds, how long a call waits for one, and how many
/// reads one connection sends together.
public struct PostgresPoolSettings: Sendable, Equatable {
    /// The pool sizes a server accepts.
    public static let sizeRange = 1...100
    /// The pipeline depths a server accepts.
    public static let pipelineDepthRange = 1...64

    /// Connections open at most; a call made while every one is busy waits for one to be free.
    /// Connections are opened as calls need them, not up front.
    public var size: Int
    /// Longest wait for a free connection; past it the call fails with
    /// ``StoreError/Code/unavailable`` instead of queueing without end.
    public var checkoutTimeout: Duration
    /// Longest wait, in whole seconds, for a new connection to be made (libpq's
    /// `connect_timeout`, which counts 2 as its least); a `connect_timeout` in the URL wins.
    public var connectTimeoutSeconds: Int
    /// One-statement reads (an inbox page with its counts) sent together on one connection at
    /// most, in libpq's pipeline mode: one round trip for all of them. A read goes out at once on
    /// a free connection; the reads that arrive while every connection is busy wait, and the next
    /// connection back sends them together (``PostgresReadPipeline``). 1 sends each read alone.
    public var pipelineDepth: Int

    public init(
        size: Int = 8, checkoutTimeout: Duration = .seconds(5), connectTimeoutSeconds: Int = 5, pipelineDepth: Int = 16
    ) {
        precondition(Self.sizeRange.contains(size), "a pool holds 1 to 100 connections")
        precondition(Self.pipelineDepthRange.contains(pipelineDepth), "a pipeline holds 1 to 64 reads")
        self.size = size
        self.checkoutTimeout = checkoutTimeout
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.pipelineDepth = pipelineDepth
    }
}
