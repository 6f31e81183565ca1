import LocalOrgCommands

await LocalOrgCommand.main()
