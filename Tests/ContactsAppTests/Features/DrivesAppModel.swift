import ContactsApp
import MobileSync

/// What the feature suites share: a model over the fixture's store, ten list rows high, and typing.
protocol DrivesAppModel {}

extension DrivesAppModel {
    func model(_ fixture: StoreFixture, sync: SyncController? = nil, offline: Bool = false) throws -> AppModel {
        var model = try AppModel(store: fixture.store, syncedFields: fixture.fields, sync: sync, offline: offline)
        model.setListHeight(10)
        return model
    }

    func type(_ text: String, into model: inout AppModel) {
        for character in text { model.type(character) }
    }
}
