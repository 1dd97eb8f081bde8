import Foundation
import HeraldCrypto
import HeraldTestSupport
import Testing

@Suite("ES256 and RS256 keys and JWTs")
struct SigningTests {
    static let ecKey = try! SigningKey.generateP256()
    static let rsaKey = try! SigningKey.generateRSA()
    let message = Array("header.payload".utf8)

    @Test("a generated key round-trips through PKCS#8 and SPKI PEM")
    func pemRoundTrip() throws {
        for key in [Self.ecKey, Self.rsaKey] {
            let pem = try key.privateKeyPEM()
            #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
            let loaded = try SigningKey(privateKeyPEM: pem)
            #expect(loaded.kind == key.kind)
            #expect(loaded.isPrivate)
            let publicPEM = try key.publicKeyPEM()
            #expect(publicPEM.hasPrefix("-----BEGIN PUBLIC KEY-----\n"))
            #expect(try loaded.publicKeyPEM() == publicPEM)
            let publicKey = try SigningKey(publicKeyPEM: publicPEM)
            #expect(!publicKey.isPrivate)
            #expect(throws: CryptoError.invalidKey) { try publicKey.privateKeyPEM() }
            #expect(throws: CryptoError.invalidKey) { try publicKey.sign([1]) }
        }
        #expect(Self.ecKey.kind == .p256)
        #expect(Self.rsaKey.kind == .rsa(bits: 2_048))
    }

    @Test("PEM that is not a usable key is refused with OpenSSL's reason")
    func badPEM() {
        #expect(throws: CryptoError.openSSL) { try SigningKey(privateKeyPEM: "-----BEGIN PRIVATE KEY-----\nAAAA\n") }
        #expect(throws: CryptoError.openSSL) { try SigningKey(publicKeyPEM: "not a key") }
        do {
            _ = try SigningKey(privateKeyPEM: "garbage")
        } catch {
            #expect(String(reflecting: error).contains("PEM_read_bio_PrivateKey failed: error:"))
        }
    }

    @Test("sign and verify round-trip; a changed message or another key does not verify")
    func signVerify() throws {
        for key in [Self.ecKey, Self.rsaKey] {
            let signature = try key.sign(message)
            #expect(signature.count == (key.kind == .p256 ? 64 : 256))
            #expect(try key.verify(signature, for: message))
            #expect(try key.publicKey().verify(signature, for: message))
            #expect(try !key.verify(signature, for: message + [0]))
            var flipped = signature
            flipped[10] ^= 1
            #expect(try !key.verify(flipped, for: message))
            #expect(try !key.verify(Array(signature.dropLast()), for: message))
        }
        #expect(try !SigningKey.generateP256().verify(Self.ecKey.sign(message), for: message))
        #expect(try !SigningKey.generateRSA().verify(Self.rsaKey.sign(message), for: message))
    }

    @Test("JWT sign and verify with kid; tampering, a wrong key and alg confusion are refused")
    func jwt() throws {
        struct Claims: Codable, Equatable {
            var iss: String
            var iat: Int64
        }
        let claims = Claims(iss: "TEAM123456", iat: 1_750_000_000)
        let token = try JWT.sign(header: ["kid": "KEY1234567", "typ": "JWT"], claims: claims, key: Self.ecKey)
        let verified = try JWT.verify(token, key: Self.ecKey.publicKey(), claims: Claims.self)
        #expect(verified.claims == claims)
        #expect(verified.header == JWTHeader(alg: .es256, kid: "KEY1234567"))
        let header = try #require(Base64URL.decode(String(token.split(separator: ".")[0])))
        #expect(String(decoding: header, as: UTF8.self) == #"{"alg":"ES256","kid":"KEY1234567","typ":"JWT"}"#)

        let parts = token.split(separator: ".").map(String.init)
        let tampered = [parts[0], Base64URL.encode(#"{"iat":1750000000,"iss":"OTHER"}"#), parts[2]].joined(
            separator: ".")
        #expect(throws: CryptoError.invalidSignature) { try JWT.verify(tampered, key: Self.ecKey, claims: Claims.self) }
        #expect(throws: CryptoError.invalidSignature) {
            try JWT.verify(token, key: SigningKey.generateP256(), claims: Claims.self)
        }
        #expect(throws: CryptoError.unsupportedAlgorithm) {
            try JWT.verify(token, key: Self.rsaKey, claims: Claims.self)
        }
        for alg in ["none", "HS256", "RS256", "es256"] {
            let forged = [Base64URL.encode(#"{"alg":"\#(alg)","typ":"JWT"}"#), parts[1], parts[2]].joined(
                separator: ".")
            #expect(throws: CryptoError.unsupportedAlgorithm) {
                try JWT.verify(forged, key: Self.ecKey, claims: Claims.self)
            }
        }
        let unsigned = Base64URL.encode(#"{"alg":"none"}"#) + "." + parts[1] + "."
        #expect(throws: CryptoError.malformedToken) { try JWT.verify(unsigned, key: Self.ecKey, claims: Claims.self) }
        #expect(throws: CryptoError.unsupportedAlgorithm) {
            try JWT.sign(header: ["alg": "HS256"], claims: claims, key: Self.ecKey)
        }
        let rs256 = try JWT.sign(header: ["kid": "k"], claims: claims, key: Self.rsaKey)
        #expect(try JWT.verify(rs256, key: Self.rsaKey.publicKey(), claims: Claims.self).header.alg == .rs256)
        #expect(throws: CryptoError.unsupportedAlgorithm) {
            try JWT.verify(rs256, key: Self.ecKey, claims: Claims.self)
        }
    }

    @Test("an encrypted key is refused without asking for a passphrase; a .p8 without its last newline loads")
    func pemVariants() async throws {
        let encrypted = try await OpenSSLTool.run([
            "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-aes256", "-pass", "pass:secret",
        ])
        #expect(encrypted.hasPrefix("-----BEGIN ENCRYPTED PRIVATE KEY-----"))
        #expect(throws: CryptoError.openSSL) { try SigningKey(privateKeyPEM: encrypted) }
        let p8 = try Self.ecKey.privateKeyPEM()
        let trimmed = String(p8.dropLast())
        #expect(try SigningKey(privateKeyPEM: trimmed).publicKeyPEM() == Self.ecKey.publicKeyPEM())
    }

    @Test("a small RSA key and a non-P-256 curve are refused")
    func weakKeys() async throws {
        let rsa1024 = try await OpenSSLTool.run(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"])
        #expect(throws: CryptoError.invalidKey) { try SigningKey(privateKeyPEM: rsa1024) }
        let p384 = try await OpenSSLTool.run(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"])
        #expect(throws: CryptoError.invalidKey) { try SigningKey(privateKeyPEM: p384) }
    }
}

@Suite("ECDSA DER and raw r||s")
struct ECDSASignatureTests {
    @Test("a high bit gets a 0x00 pad, leading zeros are stripped, and both convert back")
    func edgeCases() throws {
        let high = [UInt8](repeating: 0xFF, count: 32)
        let leadingZeros = [0, 0, 0x7F] + [UInt8](repeating: 0x11, count: 29)
        let zero = [UInt8](repeating: 0, count: 32)
        let one = [UInt8](repeating: 0, count: 31) + [1]
        let cases: [([UInt8], [UInt8], [UInt8])] = [
            (
                high, leadingZeros,
                [0x30, 67, 0x02, 33, 0x00] + high + [0x02, 30, 0x7F] + [UInt8](repeating: 0x11, count: 29)
            ),
            (zero, one, [0x30, 6, 0x02, 1, 0x00, 0x02, 1, 0x01]),
            (
                [0, 0x80] + [UInt8](repeating: 0, count: 30), one,
                [0x30, 37, 0x02, 32, 0x00, 0x80] + [UInt8](repeating: 0, count: 30) + [0x02, 1, 1]
            ),
        ]
        for (r, s, der) in cases {
            #expect(try ECDSASignature.der(fromRaw: r + s) == der)
            #expect(try ECDSASignature.raw(fromDER: der) == r + s)
        }
        let random = SecureRandom.bytes(count: 64)
        #expect(try ECDSASignature.raw(fromDER: ECDSASignature.der(fromRaw: random)) == random)
    }

    @Test("non-minimal, negative, oversized and truncated DER are refused")
    func strictDER() {
        let bad: [[UInt8]] = [
            [],
            [0x30, 6, 0x02, 1, 0x01, 0x02, 1, 0x01, 0x00],  // trailing byte
            [0x30, 7, 0x02, 2, 0x00, 0x01, 0x02, 1, 0x01],  // needless leading zero
            [0x30, 6, 0x02, 1, 0x81, 0x02, 1, 0x01],  // negative
            [0x30, 6, 0x02, 0, 0x02, 2, 0x01, 0x01],  // empty integer
            [0x30, 38, 0x02, 34, 0x01] + [UInt8](repeating: 1, count: 33) + [0x02, 1, 1],  // 34 bytes
            [0x30, 0x81, 6, 0x02, 1, 0x01, 0x02, 1, 0x01],  // long-form length
            [0x30, 6, 0x02, 1, 0x01, 0x02, 1],  // truncated
            [0x31, 6, 0x02, 1, 0x01, 0x02, 1, 0x01],  // SET, not SEQUENCE
        ]
        for der in bad {
            #expect(throws: CryptoError.invalidSignature, "\(der)") { try ECDSASignature.raw(fromDER: der) }
        }
        #expect(throws: CryptoError.invalidSignature) {
            try ECDSASignature.der(fromRaw: [UInt8](repeating: 1, count: 63))
        }
    }
}

@Suite("Signatures cross-checked with the openssl tool")
struct OpenSSLCrossCheckTests {
    let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJURUFNIn0".utf8)

    @Test("openssl verifies our ES256 and RS256 signatures")
    func opensslVerifiesOurs() async throws {
        let scratch = try TemporaryDirectory("herald-openssl")
        defer { scratch.remove() }
        let directory = scratch.url
        try Data(message).write(to: directory.appendingPathComponent("data"))
        for key in [try SigningKey.generateP256(), try SigningKey.generateRSA()] {
            try key.publicKeyPEM().write(
                to: directory.appendingPathComponent("pub.pem"), atomically: true, encoding: .utf8)
            let signature = try key.sign(message)
            let der = key.kind == .p256 ? try ECDSASignature.der(fromRaw: signature) : signature
            try Data(der).write(to: directory.appendingPathComponent("sig"))
            let output = try await OpenSSLTool.run(
                ["dgst", "-sha256", "-verify", "pub.pem", "-signature", "sig", "data"], in: directory)
            #expect(output.contains("Verified OK"))
        }
    }

    @Test("we load openssl's PKCS#8 keys and verify its signatures")
    func weVerifyOpenSSLs() async throws {
        let scratch = try TemporaryDirectory("herald-openssl")
        defer { scratch.remove() }
        let directory = scratch.url
        try Data(message).write(to: directory.appendingPathComponent("data"))
        let generators = [
            ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "key.pem"],
            ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "key.pem"],
        ]
        for generate in generators {
            _ = try await OpenSSLTool.run(generate, in: directory)
            _ = try await OpenSSLTool.run(
                ["dgst", "-sha256", "-sign", "key.pem", "-out", "sig", "data"], in: directory)
            let pem = try String(contentsOf: directory.appendingPathComponent("key.pem"), encoding: .utf8)
            #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
            let key = try SigningKey(privateKeyPEM: pem)
            let produced = Array(try Data(contentsOf: directory.appendingPathComponent("sig")))
            let signature = key.kind == .p256 ? try ECDSASignature.raw(fromDER: produced) : produced
            #expect(try key.publicKey().verify(signature, for: message))
            #expect(try !key.publicKey().verify(signature, for: message + [1]))
        }
    }
}
