import Foundation
import HeraldModel
import Testing

/// Runs `body` and returns the ValidationError it throws, recording a failure when it throws none.
func validationError(
    _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
) -> ValidationError? {
    do {
        try body()
        Issue.record("expected a ValidationError, nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as ValidationError {
        return error
    } catch {
        Issue.record("expected a ValidationError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Expects `body` to fail with `code` on `field`, with a message that names the field.
func expectInvalid(
    _ code: String, field: String, _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let error = validationError(body, sourceLocation: sourceLocation) else { return }
    #expect(error.code == code, "message: \(error.message)", sourceLocation: sourceLocation)
    #expect(error.field == field, "message: \(error.message)", sourceLocation: sourceLocation)
    #expect(
        error.message.contains(field), "message should name the field: \(error.message)", sourceLocation: sourceLocation
    )
}

/// A fixed instant in a named zone: `local(2024, 6, 1, 23, 30, in: "Europe/Amsterdam")`.
func local(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, in zone: String) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: zone)!
    return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute))!
}
