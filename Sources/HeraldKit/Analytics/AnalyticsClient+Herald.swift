extension AnalyticsClient {
    /// Analytics sent to Herald (`POST /v1/me/events`): at most 100 events a request, sent
    /// when a batch is full or 5 s after the first waiting event (`clock` keeps the time).
    ///
    /// An event the server would refuse (a name outside `[a-z0-9_.]` or over 100 bytes,
    /// properties over 4 KB of JSON) is dropped when logged, and a batch the server refuses
    /// (another 4xx) is dropped, so neither holds back the rest. Without a session (401) events
    /// are kept until the next event is logged, which sends them all; other failures (offline,
    /// timeout, 5xx, 408, 429) are retried every 5 s. At most the newest 1,000 events are kept.
    public static func herald(api: HeraldAPI, clock: HeraldClock) -> AnalyticsClient {
        let batcher = AnalyticsBatcher(api: api, clock: clock)
        return AnalyticsClient(log: { name, properties in batcher.log(name, properties) })
    }
}
