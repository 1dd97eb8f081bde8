import FoundationEssentials
import HeraldModel

extension PublishRequest {
    /// Keys of the push `data` contract that the server fills in; a publisher may not set them.
    public static let reservedDataKeys: Set<String> = ["notificationId", "type", "deepLink", "hasDetail"]

    /// Checks the request against ``Limits``; throws the first ``ValidationError`` found.
    public func validate() throws {
        if recipients.isEmpty {
            throw ValidationError(
                field: "recipients", code: "required", message: "recipients must list at least 1 user id.")
        }
        if recipients.count > Limits.recipientsMax {
            throw ValidationError.tooMany("recipients", max: Limits.recipientsMax, what: "user ids")
        }
        var seen: Set<String> = []
        seen.reserveCapacity(recipients.count)
        for (index, recipient) in recipients.enumerated() {
            try Check.userId(recipient, "recipients[\(index)]")
            guard seen.insert(recipient).inserted else {
                throw ValidationError(
                    field: "recipients[\(index)]", code: "duplicate",
                    message: "recipients[\(index)] '\(recipient)' appears more than once.")
            }
        }
        try Self.validateContent(
            type: type, title: title, body: body, data: data, deepLink: deepLink, detail: detail, push: push)
        try Self.validate(source: source)
        if sendAt != nil, deliverAt != nil {
            throw ValidationError.invalid("deliverAt", "cannot be given with sendAt: choose one.")
        }
        if let deliverAt, LocalTime.minutes(deliverAt.localTime) == nil {
            throw ValidationError.invalid("deliverAt.localTime", "must be a time as HH:mm, from 00:00 to 23:59.")
        }
    }

    /// Checks `sendAt` at `now`: not in the past, at most ``Limits/sendAtMaxSeconds`` ahead.
    public func validateSchedule(now: Date) throws {
        guard let sendAt else { return }
        // A second of grace for the publisher's clock and the request's way here.
        if sendAt < now.addingTimeInterval(-1) {
            throw ValidationError(
                field: "sendAt", code: "out_of_range",
                message: "sendAt is in the past; leave it out to publish now.")
        }
        if sendAt.timeIntervalSince(now) > Double(Limits.sendAtMaxSeconds) {
            throw ValidationError(
                field: "sendAt", code: "out_of_range",
                message: "sendAt must be at most \(Limits.sendAtMaxSeconds / 86_400) days ahead.")
        }
    }

    /// Checks a publish's or a broadcast's `source`: an id of the user-id alphabet and a name.
    static func validate(source: NotificationSource?) throws {
        guard let source else { return }
        try Check.sourceID(source.id, "source.id")
        try Check.requiredText(source.name, "source.name", max: Limits.sourceNameMaxLength)
        if Check.hasControl(source.name) {
            throw ValidationError.invalid("source.name", "must not contain control characters.")
        }
    }

    /// Checks the notification fields a publish and a broadcast share (everything but the
    /// audience); throws the first ``ValidationError`` found.
    static func validateContent(
        type: String, title: String, body: String, data: [String: String]?, deepLink: String?,
        detail: NotificationDetail?, push: PushOptions?
    ) throws {
        try Check.type(type, "type")
        try Check.requiredText(title, "title", max: Limits.titleMaxLength)
        try Check.maxLength(body, "body", Limits.bodyMaxLength)
        if let data {
            if data.count > Limits.dataMaxKeys {
                throw ValidationError.tooMany("data", max: Limits.dataMaxKeys, what: "keys")
            }
            for key in data.keys.sorted() {
                if key.isEmpty { throw ValidationError.invalid("data", "keys must not be empty.") }
                let field = "data.\(key.count > 64 ? String(key.prefix(64)) + "…" : key)"
                try Check.maxLength(key, field, Limits.dataKeyMaxLength)
                if PublishRequest.reservedDataKeys.contains(key) {
                    throw ValidationError(
                        field: field, code: "reserved",
                        message: "\(field) is reserved: the server sets notificationId, type, deepLink and hasDetail.")
                }
                try Check.maxLength(data[key] ?? "", field, Limits.dataValueMaxLength)
            }
        }
        if let deepLink {
            try Check.link(deepLink, "deepLink", max: Limits.deepLinkMaxLength)
        }
        if let detail { try detail.validate(field: "detail") }
        if let push {
            try push.validate(field: "push")
            // The APNs payload carries the image at the top level, beside the data keys.
            if push.imageURL != nil, data?[PushOptions.imageURLPayloadKey] != nil {
                throw ValidationError(
                    field: "data.\(PushOptions.imageURLPayloadKey)", code: "reserved",
                    message:
                        "data.\(PushOptions.imageURLPayloadKey) is where APNs pushes carry push.imageURL: rename the data key or leave push.imageURL out."
                )
            }
        }
    }
}

extension NotificationDetail {
    /// Checks the rich detail: HTML size, label length, `https` URLs and an in-app action path.
    public func validate() throws { try validate(field: "detail") }

    func validate(field: String) throws {
        if let html { try Check.maxLength(html, "\(field).html", Limits.detailHTMLMaxLength) }
        if let actionLabel {
            try Check.requiredText(actionLabel, "\(field).actionLabel", max: Limits.actionLabelMaxLength)
        }
        if let heroImageURL { try Check.httpsURL(heroImageURL, "\(field).heroImageURL") }
        if let actionURL { try Check.httpsURL(actionURL, "\(field).actionURL") }
        if let actionPath { try Check.appPath(actionPath, "\(field).actionPath") }
        if actionPath != nil, actionURL != nil {
            throw ValidationError.invalid(
                "\(field).actionPath", "and \(field).actionURL cannot both be set: choose one.")
        }
    }
}
