#pragma once
// The Help menu: a short guide (F1), the model card (the model's MODEL.md, rendered) and the
// About box (version, model, libraries). Plain words; nothing here runs a model.
#include <QString>

#include <functional>

class QMainWindow;
class QWidget;

namespace gs::ui {

struct ModelCard;

// The guide's text (Markdown): what to paste or open, what the columns and colours mean, which
// settings to change when.
QString guideMarkdown();
// The model's own card: MODEL.md beside its weights, else a summary of its metadata.
QString modelCardMarkdown(const ModelCard& card);
// Version, model and library versions, as the About box shows them.
QString aboutText(const ModelCard& card);

// Adds "Help" to the window's menu bar; `card` gives the model currently loaded.
void addHelpMenu(QMainWindow* window, std::function<ModelCard()> card);
// A non-modal window showing Markdown (the guide, the model card); returns it for tests.
QWidget* showMarkdown(QWidget* parent, const QString& title, const QString& markdown, const QString& object_name);

}  // namespace gs::ui
