import ForceJSON
import SmartStore

extension StoreTransaction {
    /// Every result of `spec`, read a page of `spec.pageSize` at a time, in the spec's order.
    func everyPage(of spec: QuerySpec, arguments: [JSONValue] = []) throws -> [JSONValue] {
        var values: [JSONValue] = []
        var page = 0
        while true {
            let rows = try query(spec, pageIndex: page, arguments: arguments)
            values += rows
            if rows.count < spec.pageSize { return values }
            page += 1
        }
    }
}
