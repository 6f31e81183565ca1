import ForceJSON
import Foundation
import GRDB

/// `limits` and `limits/recordCount`.
extension LocalOrgAPI {
    /// Every limit a Developer Edition org reports, with its Max; only the API requests are
    /// counted (the others are features localorg does not have, so nothing uses them).
    func limits(_ context: DataContext) -> APIResponse {
        var body: JSONObject = [:]
        for (name, maximum) in Self.limitMaxima { body[name] = ["Max": .int(maximum), "Remaining": .int(maximum)] }
        body["DailyApiRequests"] = ["Max": .int(Int64(settings.dailyAPILimit)), "Remaining": .int(Int64(max(0, settings.dailyAPILimit - context.apiUsed)))]
        return .json(.object(body))
    }

    static let limitMaxima: [(String, Int64)] = [
        ("ActiveScratchOrgs", 3), ("AnalyticsExternalDataSizeMB", 40960), ("ConcurrentAsyncGetReportInstances", 200),
        ("ConcurrentEinsteinDataInsightsStoryCreation", 5), ("ConcurrentEinsteinDiscoveryStoryCreation", 2),
        ("ConcurrentSyncReportRuns", 20), ("DailyAnalyticsDataflowJobExecutions", 60), ("DailyAnalyticsUploadedFilesSizeMB", 51200),
        ("DailyApiRequests", 15000), ("DailyAsyncApexExecutions", 250000), ("DailyAsyncApexTests", 500), ("DailyBulkApiBatches", 15000),
        ("DailyBulkV2QueryFileStorageMB", 976562), ("DailyBulkV2QueryJobs", 10000), ("DailyDeliveredPlatformEvents", 10000),
        ("DailyDurableGenericStreamingApiEvents", 10000), ("DailyDurableStreamingApiEvents", 10000),
        ("DailyEinsteinDataInsightsStoryCreation", 1000), ("DailyEinsteinDiscoveryPredictAPICalls", 50000),
        ("DailyEinsteinDiscoveryPredictionsByCDC", 500000), ("DailyEinsteinDiscoveryStoryCreation", 100),
        ("DailyFunctionsApiCallLimit", 235000), ("DailyGenericStreamingApiEvents", 10000), ("DailyScratchOrgs", 6),
        ("DailyStandardVolumePlatformEvents", 10000), ("DailyStreamingApiEvents", 10000), ("DailyWorkflowEmails", 405),
        ("DataStorageMB", 5), ("DurableStreamingApiConcurrentClients", 20), ("FileStorageMB", 20), ("HourlyAsyncReportRuns", 1200),
        ("HourlyDashboardRefreshes", 200), ("HourlyDashboardResults", 5000), ("HourlyDashboardStatuses", 999_999_999),
        ("HourlyLongTermIdMapping", 100000), ("HourlyManagedContentPublicRequests", 50000), ("HourlyODataCallout", 10000),
        ("HourlyPublishedPlatformEvents", 50000), ("HourlyPublishedStandardVolumePlatformEvents", 1000),
        ("HourlyShortTermIdMapping", 100000), ("HourlySyncReportRuns", 500), ("HourlyTimeBasedWorkflow", 50), ("MassEmail", 10),
        ("MonthlyEinsteinDiscoveryStoryCreation", 500), ("MonthlyPlatformEventsUsageEntitlement", 0), ("Package2VersionCreates", 6),
        ("Package2VersionCreatesWithoutValidation", 500), ("PermissionSetsAssigned", 1500),
        ("PrivateConnectOutboundCalloutHourlyLimitMB", 0), ("SingleEmail", 15), ("StreamingApiConcurrentClients", 20),
    ]

    /// `limits/recordCount[?sObjects=A,B]`: live records per object; unknown names are left out,
    /// as Salesforce does.
    func recordCount(_ context: DataContext) async throws -> APIResponse {
        let wanted = context.request.queryItems["sObjects"].map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() } }
        let counts = try await store.read { db in try OrgStore.counts(db, schema: self.schema) }.filter { count in
            guard let wanted, !wanted.isEmpty, wanted != [""] else { return true }
            return wanted.contains(count.object.lowercased())
        }
        return .json(["sObjects": .array(counts.map { ["count": .int(Int64($0.live)), "name": .string($0.object)] })])
    }
}
