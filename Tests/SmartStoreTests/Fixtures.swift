import ForceJSON
import Foundation
import GRDB

@testable import SmartStore

/// A store in a fresh temporary directory, removed when the test's scope ends.
final class TemporaryStore {
    let directory: URL
    let path: String
    let store: SmartStore

    init(file: String = "store.sqlite") throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("smartstore-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent(file).path
        store = try SmartStore(path: path)
    }

    /// A second, independent handle on the same file, as another process would have.
    func reopen() throws -> SmartStore { try SmartStore(path: path) }

    /// Raw SQL on the file, outside SmartStore, to check what is really stored.
    func raw<T>(_ body: (Database) throws -> T) throws -> T {
        let queue = try DatabaseQueue(path: path)
        return try queue.read(body)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}

enum Employees {
    /// The SDK's SmartSqlTest layout: employees is TABLE_1, departments TABLE_2.
    static let employeeSpecs: [IndexSpec] = [
        IndexSpec(path: "firstName", type: .string),
        IndexSpec(path: "lastName", type: .string),
        IndexSpec(path: "deptCode", type: .string),
        IndexSpec(path: "employeeId", type: .string),
        IndexSpec(path: "managerId", type: .string),
        IndexSpec(path: "salary", type: .integer),
        IndexSpec(path: "education", type: .json1),
        IndexSpec(path: "isManager", type: .json1),
    ]
    static let departmentSpecs: [IndexSpec] = [
        IndexSpec(path: "deptCode", type: .string),
        IndexSpec(path: "name", type: .string),
        IndexSpec(path: "budget", type: .integer),
    ]

    static func make() throws -> TemporaryStore {
        let temporary = try TemporaryStore()
        try temporary.store.registerSoup("employees", indexSpecs: employeeSpecs)
        try temporary.store.registerSoup("departments", indexSpecs: departmentSpecs)
        return temporary
    }

    static func employee(
        _ first: String, _ last: String, dept: String, id: String, manager: String? = nil, salary: Int64,
        education: String = "MIT", isManager: Bool = false
    ) -> JSONObject {
        var object: JSONObject = [
            "firstName": .string(first), "lastName": .string(last), "deptCode": .string(dept),
            "employeeId": .string(id), "salary": .int(salary), "education": .string(education),
            "isManager": .bool(isManager), "address": ["city": "San Francisco", "zipcode": "94105"],
        ]
        object["managerId"] = manager.map(JSONValue.string) ?? .null
        return object
    }

    /// Seven employees in three departments, as the SDK's Smart SQL tests load them.
    static func load(into store: SmartStore) throws {
        let people = [
            employee("Christine", "Haas", dept: "A00", id: "00010", salary: 200_000, isManager: true),
            employee("Michael", "Thompson", dept: "A00", id: "00020", manager: "00010", salary: 120_000),
            employee("Sally", "Kwan", dept: "A00", id: "00310", manager: "00010", salary: 100_000),
            employee("John", "Geyer", dept: "B00", id: "00040", salary: 102_000, education: "Stanford", isManager: true),
            employee("Irving", "Stern", dept: "B00", id: "00050", manager: "00040", salary: 100_000),
            employee("Eva", "Pulaski", dept: "B00", id: "00060", manager: "00040", salary: 80_000),
            employee("Eileen", "Henderson", dept: "C00", id: "00070", manager: "00040", salary: 70_000),
        ]
        _ = try store.create(people, in: "employees")
        _ = try store.create(
            [
                ["deptCode": "A00", "name": "Sales", "budget": 1_000_000],
                ["deptCode": "B00", "name": "R&D", "budget": 2_000_000],
                ["deptCode": "C00", "name": "Support", "budget": 500_000],
            ], in: "departments")
    }
}

extension JSONObject {
    func without(_ keys: String...) -> JSONObject {
        var copy = self
        for key in keys { copy[key] = nil }
        return copy
    }
}
