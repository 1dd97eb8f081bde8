import Testing

@testable import HeraldHTTP

@Suite struct BearerChallengeTests {
    @Test func headerValues() {
        #expect(BearerChallenge().headerValue == "Bearer")
        #expect(BearerChallenge(realm: "herald").headerValue == #"Bearer realm="herald""#)
        #expect(
            BearerChallenge(realm: "herald", error: "invalid_token", errorDescription: "The token has expired.")
                .headerValue
                == #"Bearer realm="herald", error="invalid_token", error_description="The token has expired.""#
        )
    }

    @Test func descriptionsKeepToTheCharactersRFC6750Allows() {
        let value = BearerChallenge(error: "invalid_token", errorDescription: "say \"hi\"\\ é\r\n").headerValue
        #expect(value == #"Bearer error="invalid_token", error_description="say 'hi'? ???""#)
    }

    @Test func everyUnauthenticatedErrorCarriesTheChallenge() {
        let error = HTTPError.unauthenticated("No.", challenge: BearerChallenge(realm: "r"))
        #expect(error.status == 401)
        #expect(error.response.headers["WWW-Authenticate"] == #"Bearer realm="r""#)
        #expect(HTTPError.unauthenticated().headers["WWW-Authenticate"] == "Bearer")
    }
}
