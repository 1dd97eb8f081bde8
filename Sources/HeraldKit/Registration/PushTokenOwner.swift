/// A push token and the user the backend holds it for: the backend files a token under the
/// user whose session registered it (PUSH-04) and unregisters it only for that user.
struct PushTokenOwner: Equatable {
    var token: String
    var userID: String
}

extension KeyValueStore {
    /// The token and user stored under `tokenKey` and `userKey`; `nil` unless both are there
    /// (a token stored by a version that did not keep its user counts as unknown).
    @MainActor func pushTokenOwner(tokenKey: String, userKey: String) -> PushTokenOwner? {
        guard let token = string(tokenKey), let userID = string(userKey) else { return nil }
        return PushTokenOwner(token: token, userID: userID)
    }

    /// Stores `owner` under `tokenKey` and `userKey`; `nil` removes both.
    @MainActor func setPushTokenOwner(_ owner: PushTokenOwner?, tokenKey: String, userKey: String) {
        setString(owner?.token, tokenKey)
        setString(owner?.userID, userKey)
    }
}
