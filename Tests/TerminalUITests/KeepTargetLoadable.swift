// Keeps the TerminalUITests target loadable (SwiftPM refuses a test target without sources) so the
// localorg branch builds on its own. Delete this file once the target has real tests.
