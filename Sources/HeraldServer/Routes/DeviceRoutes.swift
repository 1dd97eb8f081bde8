import FoundationEssentials
import HeraldHTTP
import HeraldModel

/// Device tokens: the app registers and unregisters its own; publishers list and remove.
struct DeviceRoutes {
    let services: Services

    func register(in router: inout Router) {
        router.group(UserAuthentication(auth: services.auth)) { group in
            group.add(.POST, "/v1/me/devices", registerDevice)
            group.add(.DELETE, "/v1/me/devices/{token}", unregister)
        }
        router.group(PublisherAuthentication(auth: services.auth)) { group in
            group.add(.GET, "/v1/users/{id}/devices", list)
            group.add(.DELETE, "/v1/users/{id}/devices/{token}", remove)
        }
    }

    @Sendable func registerDevice(_ request: Request, _ context: RequestContext) async throws -> Response {
        let userID = try context.user.id
        let registration = try JSONBody.decode(DeviceRegistration.self, from: request)
        try registration.validate()
        try services.checkKnownApp(registration.appId)
        let device = try await services.store.upsertDevice(
            userID: userID, registration.normalized(), at: services.now())
        return try Response.json(device)
    }

    /// PUSH-13: sign-out removes the token. Idempotent; another user's token is never touched.
    @Sendable func unregister(_ request: Request, _ context: RequestContext) async throws -> Response {
        let userID = try context.user.id
        _ = try await deleteDevice(of: userID, token: context.parameter("token"))
        return .noContent()
    }

    @Sendable func list(_ request: Request, _ context: RequestContext) async throws -> Response {
        let userID = try UserRoutes.userID(context)
        return try Response.json(DeviceList(items: try await services.store.devices(userID: userID)))
    }

    @Sendable func remove(_ request: Request, _ context: RequestContext) async throws -> Response {
        let userID = try UserRoutes.userID(context)
        guard try await deleteDevice(of: userID, token: context.parameter("token")) else {
            throw HTTPError(404, code: "not_found", message: "No such device for this user.")
        }
        return .noContent()
    }

    /// Removes `token` of `userID`; an APNs token is stored lower-case, so a hex token that
    /// did not match as sent is tried lower-cased.
    private func deleteDevice(of userID: String, token: String) async throws -> Bool {
        if try await services.store.deleteDevice(userID: userID, token: token) { return true }
        let lowered = token.lowercased()
        let isHex = lowered.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
        guard lowered != token, isHex else { return false }
        return try await services.store.deleteDevice(userID: userID, token: lowered)
    }
}
