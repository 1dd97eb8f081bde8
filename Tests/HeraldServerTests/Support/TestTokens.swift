import Foundation
import HeraldCrypto

/// Signs user tokens the way a third party would, to test what the server accepts.
enum TestTokens {
    static func sign(sub: String, exp: Date, secret: String = TestServer.secret) throws -> String {
        try JWT.signHS256(claims: JWTClaims(sub: sub, exp: exp, iat: Date()), secret: Array(secret.utf8))
    }
}
