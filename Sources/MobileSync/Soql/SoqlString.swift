/// A SOQL string literal: the text in single quotes, with backslashes and quotes escaped as SOQL wants.
public enum SoqlString {
    public static func literal(_ text: String) -> String {
        "'" + text.replacingAll("\\", with: "\\\\").replacingAll("'", with: "\\'") + "'"
    }
}
