import FoundationEssentials
import HeraldModel
import HeraldServerModel

/// The store's one JSON encoder and decoder: JSON columns (data, detail, push, properties,
/// preferences fields, app config) and stream-event payloads. Dates are ISO 8601.
enum StoreJSON {
    static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    // JSONEncoder and JSONDecoder are Sendable and safe to share once configured.
    private static let encoder = makeEncoder()
    private static let decoder = makeDecoder()

    static func encode(_ value: some Encodable) throws(StoreError) -> String {
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            throw StoreError(code: .encodingFailed, message: "cannot encode \(type(of: value)): \(error)")
        }
    }

    static func decode<T: Decodable>(_ type: T.Type, from text: String, sql: String? = nil) throws(StoreError) -> T {
        do {
            return try decoder.decode(type, from: Data(text.utf8))
        } catch {
            throw StoreError(code: .invalidStoredValue, message: "cannot decode stored \(T.self)", sql: sql)
        }
    }
}

// MARK: - Publish fast path

/// The shapes the publish loop writes per row (the `data` and `push` columns; the list JSON and
/// the `notification.created` payload come from `JSONWriter.notificationFields`), written with
/// ``JSONWriter``: JSONEncoder costs more
/// than the SQLite inserts themselves in a 1,000-recipient batch. Tests decode the output and
/// compare it with JSONEncoder's, so a field added to the model types fails them until it is
/// added here.
extension StoreJSON {
    static func encodeData(_ data: [String: String]) -> String {
        JSONWriter.text { $0.stringMap(data) }
    }

    /// The plain options on the fast path; a push with rich options (``PushOptions/usesRichOptions``:
    /// images, levels, critical sounds, ...) through JSONEncoder, which writes the same document.
    static func encodePush(_ push: PushOptions) throws(StoreError) -> String {
        if push.usesRichOptions { return try encode(push) }
        return JSONWriter.text { writer in
            writer.raw("{")
            if let collapseId = push.collapseId {
                writer.raw(#""collapseId":"#)
                writer.string(collapseId)
                writer.raw(",")
            }
            if let priority = push.priority {
                writer.raw(#""priority":"#)
                writer.string(priority.rawValue)
                writer.raw(",")
            }
            writer.raw(#""send":"#)
            writer.bool(push.send)
            if let sound = push.sound {
                writer.raw(#","sound":"#)
                writer.string(sound.name)
            }
            if let ttlSeconds = push.ttlSeconds {
                writer.raw(#","ttlSeconds":"#)
                writer.int(ttlSeconds)
            }
            writer.raw("}")
        }
    }
}
