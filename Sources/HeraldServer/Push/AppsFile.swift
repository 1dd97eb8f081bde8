import FoundationEssentials
import HeraldModel
import HeraldPush

/// The apps file (`--apps-file`): the push credentials of the apps besides the default one,
/// whose credentials are `herald serve`'s push flags.
///
/// ```json
/// {"apps": [
///   {"id": "shop",
///    "apns": {"keyFile": "AuthKey_ABC123DEFG.p8", "keyId": "ABC123DEFG", "teamId": "TEAM123456",
///             "topic": "com.example.shop", "baseURL": "https://…", "caFile": "…"},
///    "fcm": {"serviceAccountFile": "shop-firebase.json", "baseURL": "https://…", "caFile": "…"},
///    "expo": {"accessToken": "…", "baseURL": "https://exp.host", "caFile": "…"}}
/// ]}
/// ```
///
/// Every provider is optional (an app without one fails its devices of that provider with
/// `provider_not_configured`); `baseURL` and `caFile` are optional inside each. Relative paths are
/// read from the apps file's folder. Ids follow the device's `appId` rule, are unique and never
/// `default`; an unknown key anywhere is refused, so a misspelt setting is never silently ignored.
enum AppsFile {
    /// The apps in the file at `path`.
    static func load(path: String) throws -> [AppPushSettings] {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw PushSettingsError("cannot read the apps file \(path): \(FileReadError.reason(error))")
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do {
            return try parse(data, directory: directory)
        } catch let error as Problem {
            throw PushSettingsError("the apps file \(path): \(error.message)")
        }
    }

    /// A mistake in the file, named by where it is (`apps[1].apns.keyId`).
    struct Problem: Error {
        var message: String
        init(_ at: String, _ what: String) { message = "\(at) \(what)" }
        init(message: String) { self.message = message }
    }

    /// The apps of the file's JSON `data`, relative paths resolved in `directory`.
    static func parse(_ data: Data, directory: String) throws -> [AppPushSettings] {
        guard let root = JSONValue.object(data) as? [String: Any] else {
            throw Problem("the file", "is not a JSON object")
        }
        try known(root, ["apps"], at: "the file")
        guard let list = root["apps"] as? [Any] else { throw Problem("apps", "must be an array of apps") }
        var apps: [AppPushSettings] = []
        for (index, item) in list.enumerated() {
            let at = "apps[\(index)]"
            guard let object = item as? [String: Any] else { throw Problem(at, "must be an object") }
            try known(object, ["id", "apns", "fcm", "expo"], at: at)
            let id = try text(object, "id", at: at)
            do {
                try DeviceRegistration.validateAppID(id, field: "\(at).id")
            } catch let error as ValidationError {
                throw Problem(message: error.message)
            }
            guard id != DeviceRegistration.defaultAppID else {
                throw Problem("\(at).id", "must not be \"default\": the default app's credentials are the push flags")
            }
            guard !apps.contains(where: { $0.id == id }) else { throw Problem("\(at).id", "repeats \"\(id)\"") }
            var app = AppPushSettings(id: id)
            let resolve = { (path: String) in path.hasPrefix("/") ? path : directory + "/" + path }
            if let apns = try section(object, "apns", at: at) {
                let at = "\(at).apns"
                try known(apns, ["keyFile", "keyId", "teamId", "topic", "baseURL", "caFile"], at: at)
                app.apns = APNsSettings(
                    keyFile: resolve(try text(apns, "keyFile", at: at)), keyID: try text(apns, "keyId", at: at),
                    teamID: try text(apns, "teamId", at: at), topic: try text(apns, "topic", at: at),
                    baseURL: try url(apns, at: at), caFile: try optionalText(apns, "caFile", at: at).map(resolve))
            }
            if let fcm = try section(object, "fcm", at: at) {
                let at = "\(at).fcm"
                try known(fcm, ["serviceAccountFile", "baseURL", "caFile"], at: at)
                app.fcm = FCMSettings(
                    serviceAccountFile: resolve(try text(fcm, "serviceAccountFile", at: at)),
                    baseURL: try url(fcm, at: at), caFile: try optionalText(fcm, "caFile", at: at).map(resolve))
            }
            if let expo = try section(object, "expo", at: at) {
                let at = "\(at).expo"
                try known(expo, ["accessToken", "baseURL", "caFile"], at: at)
                var settings = ExpoSettings()
                if let base = try url(expo, at: at) { settings.baseURL = base }
                settings.accessToken = try optionalText(expo, "accessToken", at: at)
                settings.caFile = try optionalText(expo, "caFile", at: at).map(resolve)
                app.expo = settings
            }
            guard app.apns != nil || app.fcm != nil || app.expo != nil else {
                throw Problem(at, "configures no provider: give it apns, fcm or expo")
            }
            apps.append(app)
        }
        return apps
    }

    private static func known(_ object: [String: Any], _ names: Set<String>, at: String) throws {
        if let unknown = object.keys.sorted().first(where: { !names.contains($0) }) {
            throw Problem(
                at, "has an unknown key \"\(unknown.prefix(60))\" (known: \(names.sorted().joined(separator: ", ")))")
        }
    }

    private static func section(_ object: [String: Any], _ name: String, at: String) throws -> [String: Any]? {
        guard let value = object[name] else { return nil }
        guard let section = value as? [String: Any] else { throw Problem("\(at).\(name)", "must be an object") }
        return section
    }

    private static func text(_ object: [String: Any], _ name: String, at: String) throws -> String {
        guard let value = try optionalText(object, name, at: at) else { throw Problem("\(at).\(name)", "is required") }
        return value
    }

    private static func optionalText(_ object: [String: Any], _ name: String, at: String) throws -> String? {
        guard let value = object[name] else { return nil }
        guard let text = value as? String, !text.isEmpty else {
            throw Problem("\(at).\(name)", "must be a non-empty string")
        }
        return text
    }

    private static func url(_ object: [String: Any], at: String) throws -> String? {
        guard let url = try optionalText(object, "baseURL", at: at) else { return nil }
        guard url.hasPrefix("https://") || url.hasPrefix("http://") else {
            throw Problem("\(at).baseURL", "must be an http:// or https:// URL")
        }
        return url
    }
}
