/// The tab strip at the top: the active tab reversed, numbers to press shown.
public enum TabBar {
    public static func draw(in canvas: inout Canvas, y: Int, width: Int, tabs: [String], active: Int, right: String, theme: Theme) {
        canvas.fill(Rect(x: 0, y: y, width: width, height: 1))
        var x = canvas.draw("forceterm ", x: 1, y: y, style: theme.style(.title))
        for (index, title) in tabs.enumerated() {
            x = canvas.draw(" \(index + 1) \(title) ", x: x, y: y, style: theme.style(index == active ? .tabActive : .tabInactive))
            x += 1
        }
        let rightWidth = right.displayWidth
        if x + rightWidth + 1 < width { canvas.draw(right, x: width - rightWidth - 1, y: y, style: theme.style(.hint)) }
    }
}
