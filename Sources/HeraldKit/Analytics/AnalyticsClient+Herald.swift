extension AnalyticsClient {
    /// Analytics sent to Herald (`POST /v1/me/events`): at most 100 events a request, sent
    /// when a batch is full or 5 s after the first waiting event (`clock` keeps the time).
    /// Failed sends are retried on the next flush, keeping at most the newest 1,000 events.
    public static func herald(api: HeraldAPI, clock: HeraldClock) -> AnalyticsClient {
        let batcher = AnalyticsBatcher(api: api, clock: clock)
        return AnalyticsClient(log: { name, properties in batcher.log(name, properties) })
    }
}
