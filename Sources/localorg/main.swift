import LocalOrgCommands

await LocalOrgCommand.runAsRoot()
