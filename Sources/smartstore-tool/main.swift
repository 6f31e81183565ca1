import SmartStoreToolCommands

SmartStoreTool.main()
