/// A centred question in a box, with the keys that answer it (yes/no unless told otherwise).
public enum ConfirmDialog {
    public static func draw(
        in canvas: inout Canvas, within area: Rect, question: String, theme: Theme, title: String = "Confirm",
        choices: String = "y = yes    n = no"
    ) {
        let width = min(max(question.displayWidth + 6, choices.displayWidth + 6, 36), area.width - 2)
        let lines = question.wrapped(toWidth: width - 4)
        let box = area.centered(width: width, height: lines.count + 4)
        Box.draw(in: &canvas, box, theme: theme, title: title, style: theme.style(.dialog))
        for (index, line) in lines.enumerated() where index + 1 < box.height - 2 {
            canvas.draw(line, x: box.x + 2, y: box.y + 1 + index, style: theme.style(.dialog), maxWidth: box.width - 4)
        }
        canvas.draw(choices, x: box.x + 2, y: box.maxY - 2, style: theme.style(.hint), maxWidth: box.width - 4)
    }
}
