import ContactsApp
import Foundation

/// libFuzzer's target for the importers: each input is a file's bytes, decoded as `forceterm
/// import` decodes them and read as vCard, CSV and JSON in turn (what each reader makes of every
/// other format is fair game too). A reader may refuse an input, but only with an `ImportProblem`
/// that names a line of the file; anything else (a crash, a trap, another error, a hang) stops
/// the run with the input saved.
@_cdecl("LLVMFuzzerTestOneInput")
public func importFuzzInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    let (text, _) = ImportReader.text(of: bytes)
    for format in ExchangeFormat.allCases {
        do {
            let (rows, _) = try ImportFuzzSetup.reader.rows(text, format: format)
            for row in rows where row.line < 1 { fatalError("\(format): a record at line \(row.line)") }
        } catch let problem as ImportProblem {
            if problem.line < 1 { fatalError("\(format): a refusal that names no line: \(problem)") }
        } catch {
            fatalError("\(format): an error that is not an ImportProblem: \(error)")
        }
    }
    return 0
}

/// The built-in config's contacts and accounts, read once.
enum ImportFuzzSetup {
    static let reader: ImportReader = {
        do {
            let schema = RecordSchema(
                kinds: [.contact, .account], syncedFields: try SyncedFields(usersyncsJSON: DefaultConfig.usersyncsJSON),
                descriptions: nil)
            return ImportReader(schema: schema, kind: .contact)
        } catch {
            fatalError("the built-in config does not load: \(error)")
        }
    }()
}
