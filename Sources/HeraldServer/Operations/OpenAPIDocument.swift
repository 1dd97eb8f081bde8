/// The HTTP contract as an OpenAPI 3.1 document, served at `/openapi.json`: the resource
/// `Resources/openapi.json`, compiled into the binary and served as written. `OpenAPITests` holds
/// it to the routes the server serves, to the answers every operation can give (503 for any,
/// 429 for publisher calls) and to the model types its examples must decode into.
enum OpenAPIDocument {
    static let bytes: [UInt8] = PackageResources.openapi_json
}
