import Foundation
import Testing

@testable import HeraldModel
@testable import HeraldServerModel

@Suite("Catalog and push-option safety")
struct CatalogSafetyTests {
    @Test("INBOX-11 admin types stay hidden whatever a published catalog says")
    func adminAlwaysHidden() throws {
        let withoutAdminRule = Catalog(
            categories: Catalog.standard.categories, types: Catalog.standard.types.filter { $0.prefix != "admin" })
        #expect(withoutAdminRule.isHidden(type: "admin.audit"))
        let visibleAdmin = Catalog(
            categories: Catalog.standard.categories,
            types: Catalog.standard.types.map { rule in
                var rule = rule
                if rule.prefix == "admin" { rule.hidden = false }
                return rule
            })
        #expect(throws: ValidationError.self) { try visibleAdmin.validate() }
        let optionalAccount = Catalog(
            categories: Catalog.standard.categories,
            types: Catalog.standard.types.map { rule in
                var rule = rule
                if rule.prefix == "account" { rule.category = "promotions" }
                return rule
            })
        #expect(throws: ValidationError.self) { try optionalAccount.validate() }
    }

    @Test("a collapse id is printable ASCII: no header injection")
    func collapseIdIsPrintable() {
        for bad in ["a\r\nx-evil: 1", "tab\tbed", "é"] {
            #expect(throws: ValidationError.self) {
                try PushOptions(send: true, collapseId: bad).validate(field: "push")
            }
        }
        #expect(throws: Never.self) { try PushOptions(send: true, collapseId: "order-42").validate(field: "push") }
    }
}
