import Foundation
import HeraldCrypto
import Testing

@Suite("Crypto primitives")
struct CryptoPrimitiveTests {
    @Test("SHA-256 matches the FIPS 180-2 vectors")
    func sha256() {
        #expect(SHA256.hash("abc").hexString == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hash([UInt8]()).hexString == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            SHA256.hash("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq").hexString
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test("HMAC-SHA-256 matches RFC 4231 and handles an empty key")
    func hmac() {
        let case1 = HMAC.sha256(key: [UInt8](repeating: 0x0b, count: 20), message: "Hi There")
        #expect(case1.hexString == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        let case2 = HMAC.sha256(key: Array("Jefe".utf8), message: "what do ya want for nothing?")
        #expect(case2.hexString == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        let longKey = HMAC.sha256(
            key: [UInt8](repeating: 0xaa, count: 131), message: "Test Using Larger Than Block-Size Key - Hash Key First"
        )
        #expect(longKey.hexString == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
        #expect(
            HMAC.sha256(key: [], message: []).hexString
                == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    @Test("base64url matches RFC 4648 without padding and decodes strictly")
    func base64url() {
        let vectors = [
            "": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy",
        ]
        for (plain, encoded) in vectors {
            #expect(Base64URL.encode(plain) == encoded)
            #expect(Base64URL.decode(encoded) == Array(plain.utf8))
        }
        #expect(Base64URL.encode([0xfb, 0xff]) == "-_8")
        #expect(Base64URL.decode("-_8") == [0xfb, 0xff])
        for bad in ["Zg==", "Z", "Zh", "Zm9v+", "Zm9v/", "Zm 9v", "Zm9vY", "é"] {
            #expect(Base64URL.decode(bad) == nil, "\(bad)")
        }
        let random = SecureRandom.bytes(count: 1_000)
        #expect(Base64URL.decode(Base64URL.encode(random)) == random)
    }

    @Test("hex encodes lowercase and decodes either case")
    func hex() {
        #expect(Hex.encode([0x00, 0xab, 0xff]) == "00abff")
        #expect(Hex.decode("00ABff") == [0x00, 0xab, 0xff])
        #expect(Hex.decode("abc") == nil)
        #expect(Hex.decode("zz") == nil)
        #expect(Hex.decode("") == [])
    }

    @Test("secure random bytes have the asked length and differ")
    func random() {
        #expect(SecureRandom.bytes(count: 0) == [])
        let a = SecureRandom.bytes(count: 32)
        let b = SecureRandom.bytes(32)
        #expect(a.count == 32)
        #expect(b.count == 32)
        #expect(a != b)
    }

    @Test("constant-time comparison")
    func constantTime() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(ConstantTime.equals([], []))
    }
}

@Suite("JWT HS256")
struct JWTTests {
    let secret = Array("a-test-secret-of-reasonable-length".utf8)
    let now = Date(timeIntervalSince1970: 1_750_000_000)

    func token(header: String, payload: String, secret: [UInt8]? = nil) -> String {
        let input = Base64URL.encode(header) + "." + Base64URL.encode(payload)
        return input + "." + Base64URL.encode(HMAC.sha256(key: secret ?? self.secret, message: input))
    }

    func failure(_ token: String, now: Date? = nil, leeway: TimeInterval = 0) -> CryptoError? {
        do {
            _ = try JWT.verifyHS256(token, secret: secret, now: now ?? self.now, leeway: leeway)
            return nil
        } catch let error as CryptoError {
            return error
        } catch {
            return nil
        }
    }

    @Test("sign then verify returns the claims")
    func roundTrip() throws {
        let claims = JWTClaims(sub: "user-1", exp: now.addingTimeInterval(3_600), iat: now)
        let signed = try JWT.signHS256(claims: claims, secret: secret)
        #expect(signed.split(separator: ".").count == 3)
        #expect(try JWT.verifyHS256(signed, secret: secret, now: now) == claims)
        let header = try #require(Base64URL.decode(String(signed.split(separator: ".")[0])))
        #expect(String(decoding: header, as: UTF8.self) == #"{"alg":"HS256","typ":"JWT"}"#)
    }

    @Test("the jwt.io example verifies its signature, then lacks exp")
    func knownVector() {
        let known =
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
        #expect(throws: CryptoError.missingClaim) {
            try JWT.verifyHS256(known, secret: Array("your-256-bit-secret".utf8), now: now)
        }
        #expect(throws: CryptoError.invalidSignature) {
            try JWT.verifyHS256(known, secret: Array("another-secret".utf8), now: now)
        }
    }

    @Test("tampering with header, payload or signature is detected")
    func tamper() throws {
        let signed = try JWT.signHS256(
            claims: JWTClaims(sub: "user-1", exp: now.addingTimeInterval(60)), secret: secret)
        let parts = signed.split(separator: ".").map(String.init)
        let otherPayload = Base64URL.encode(#"{"exp":1750000060,"sub":"admin"}"#)
        #expect(failure([parts[0], otherPayload, parts[2]].joined(separator: ".")) == .invalidSignature)
        var signature = try #require(Base64URL.decode(parts[2]))
        signature[0] ^= 0x01
        #expect(failure([parts[0], parts[1], Base64URL.encode(signature)].joined(separator: ".")) == .invalidSignature)
        #expect(
            failure([parts[0], parts[1], Base64URL.encode(Array(signature.dropLast()))].joined(separator: "."))
                == .invalidSignature)
        let otherSecret = try JWT.signHS256(
            claims: JWTClaims(sub: "user-1", exp: now.addingTimeInterval(60)), secret: Array("nope".utf8))
        #expect(failure(otherSecret) == .invalidSignature)
        let headerWithKid = Base64URL.encode(#"{"alg":"HS256","typ":"JWT","kid":"x"}"#)
        #expect(failure([headerWithKid, parts[1], parts[2]].joined(separator: ".")) == .invalidSignature)
    }

    @Test(
        "alg none and every algorithm but HS256 are refused",
        arguments: [
            #"{"alg":"none"}"#, #"{"alg":"None","typ":"JWT"}"#, #"{"alg":"HS512"}"#, #"{"alg":"hs256"}"#,
            #"{"alg":"RS256"}"#,
            #"{"alg":"ES256"}"#, #"{"alg":""}"#,
        ])
    func algorithms(header: String) {
        let payload = #"{"exp":1750003600,"sub":"user-1"}"#
        #expect(failure(token(header: header, payload: payload)) == .unsupportedAlgorithm)
        // alg none with no signature at all is malformed.
        let unsigned = Base64URL.encode(header) + "." + Base64URL.encode(payload) + "."
        #expect(failure(unsigned) == .malformedToken)
    }

    @Test("crit headers are refused")
    func crit() {
        let header = #"{"alg":"HS256","crit":["exp"]}"#
        #expect(failure(token(header: header, payload: #"{"exp":1750003600,"sub":"u"}"#)) == .unsupportedAlgorithm)
    }

    @Test("exp is required and honoured without leeway by default")
    func expiry() {
        #expect(failure(token(header: #"{"alg":"HS256"}"#, payload: #"{"sub":"u"}"#)) == .missingClaim)
        let at = now.timeIntervalSince1970
        let expiresNow = token(header: #"{"alg":"HS256"}"#, payload: #"{"sub":"u","exp":\#(Int(at))}"#)
        #expect(failure(expiresNow) == .expired)
        let expiresSoon = token(header: #"{"alg":"HS256"}"#, payload: #"{"sub":"u","exp":\#(Int(at) + 1)}"#)
        #expect(failure(expiresSoon) == nil)
        let expiredAgo = token(header: #"{"alg":"HS256"}"#, payload: #"{"sub":"u","exp":\#(Int(at) - 29)}"#)
        #expect(failure(expiredAgo) == .expired)
        #expect(failure(expiredAgo, leeway: 30) == nil)
        #expect(failure(expiredAgo, leeway: 29) == .expired)
        let fractional = token(header: #"{"alg":"HS256"}"#, payload: #"{"sub":"u","exp":\#(at + 0.5)}"#)
        #expect(failure(fractional) == nil)
    }

    @Test("nbf and iat in the future are refused, within the leeway accepted")
    func notBefore() {
        let at = Int(now.timeIntervalSince1970)
        let later = token(header: #"{"alg":"HS256"}"#, payload: #"{"sub":"u","exp":\#(at + 600),"nbf":\#(at + 10)}"#)
        #expect(failure(later) == .notYetValid)
        #expect(failure(later, leeway: 10) == nil)
        let future = token(header: #"{"alg":"HS256"}"#, payload: #"{"sub":"u","exp":\#(at + 600),"iat":\#(at + 10)}"#)
        #expect(failure(future) == .issuedInFuture)
        #expect(failure(future, leeway: 60) == nil)
        let fine = token(
            header: #"{"alg":"HS256"}"#, payload: #"{"sub":"u","exp":\#(at + 600),"iat":\#(at),"nbf":\#(at)}"#)
        #expect(failure(fine) == nil)
    }

    @Test(
        "malformed tokens get a clear error",
        arguments: [
            "", "abc", "a.b", "a.b.c.d", "..", "!!!.###.$$$", "eyJhbGciOiJIUzI1NiJ9..sig",
            String(repeating: "a", count: 9_000),
        ])
    func malformed(input: String) {
        #expect(failure(input) == .malformedToken)
    }

    @Test("claims of the wrong type are malformed; a missing or empty sub is a missing claim")
    func claimTypes() {
        #expect(
            failure(token(header: #"{"alg":"HS256"}"#, payload: #"{"sub":"u","exp":"1750003600"}"#)) == .malformedToken)
        #expect(failure(token(header: #"{"alg":"HS256"}"#, payload: #"{"sub":5,"exp":1750003600}"#)) == .malformedToken)
        #expect(failure(token(header: #"{"alg":"HS256"}"#, payload: #"[1,2]"#)) == .malformedToken)
        #expect(failure(token(header: #"["HS256"]"#, payload: #"{"sub":"u","exp":1750003600}"#)) == .malformedToken)
        #expect(failure(token(header: #"{"alg":"HS256"}"#, payload: #"{"exp":1750003600}"#)) == .missingClaim)
        #expect(failure(token(header: #"{"alg":"HS256"}"#, payload: #"{"sub":"","exp":1750003600}"#)) == .missingClaim)
        #expect(
            failure(token(header: #"{"alg":"HS256","typ":"JOSE+JSON"}"#, payload: #"{"sub":"u","exp":1750003600}"#))
                == .malformedToken)
    }

    @Test(
        "huge, out-of-range, negative and fractional time claims neither crash nor pass as far-future tokens",
        arguments: [
            (#"{"sub":"u","exp":1e300}"#, CryptoError.malformedToken),
            (#"{"sub":"u","exp":1e999}"#, .malformedToken),
            (#"{"sub":"u","exp":-1e300}"#, .malformedToken),
            (#"{"sub":"u","exp":123456789012345678901234567890}"#, .malformedToken),
            (#"{"sub":"u","exp":1e16}"#, .malformedToken),
            (#"{"sub":"u","exp":-1}"#, .expired),
            (#"{"sub":"u","exp":-0}"#, .expired),
            (#"{"sub":"u","exp":0.5}"#, .expired),
            (#"{"sub":"u","exp":1e15,"nbf":1e300}"#, .malformedToken),
            (#"{"sub":"u","exp":1e15,"iat":-1e300}"#, .malformedToken),
            (#"{"sub":"u","exp":NaN}"#, .malformedToken),
            (#"{"sub":"u","exp":Infinity}"#, .malformedToken),
            (#"{"sub":"u","exp":1e15}"#, nil),
        ] as [(String, CryptoError?)])
    func extremeTimes(payload: String, expected: CryptoError?) {
        #expect(failure(token(header: #"{"alg":"HS256"}"#, payload: payload)) == expected)
    }

    @Test("signing a time beyond the claim range throws instead of trapping")
    func signingOutOfRange() {
        for seconds in [1e300, -1e300, Double.infinity, 1e16] {
            #expect(throws: CryptoError.malformedToken) {
                try JWT.signHS256(
                    claims: JWTClaims(sub: "u", exp: Date(timeIntervalSince1970: seconds)), secret: secret)
            }
        }
        #expect(throws: CryptoError.malformedToken) {
            try JWT.signHS256(
                claims: JWTClaims(sub: "u", exp: now, iat: Date(timeIntervalSince1970: -1e300)), secret: secret)
        }
    }

    @Test("an empty secret can neither sign nor verify")
    func emptySecret() {
        #expect(throws: CryptoError.invalidKey) {
            try JWT.verifyHS256("a.b.c", secret: [], now: now)
        }
        #expect(throws: CryptoError.invalidKey) {
            try JWT.signHS256(claims: JWTClaims(sub: "u", exp: now), secret: [])
        }
    }

    @Test("errors print without token contents")
    func descriptions() {
        #expect(CryptoError.expired.description == "the token has expired")
        #expect(CryptoError.expired.identifier == "expired")
    }
}
