extension Duration {
    /// The duration in seconds, for the metrics' histograms.
    var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
