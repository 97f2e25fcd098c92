// The condition language of the rules engine: a recursive-descent parser into a small tree,
// evaluated with three-valued logic (a missing metric makes a comparison unknown, and an unknown
// condition does not fire).

#include <algorithm>
#include <cctype>
#include <cmath>
#include <variant>

#include <fmt/format.h>

#include "ptune/core/text.hpp"
#include "ptune/rules/engine.hpp"

namespace ptune::rules {

using Value = std::variant<double, std::string>;

class Expression {
  public:
    enum class Kind { Number, String, Metric, Param, Label, Unary, Binary, Call };
    /// `name` of a Unary, Binary or Call node as a code, set once at parse time: evaluation
    /// runs once per rule and subject (every case of a sweep), not once per parse.
    enum class Op {
        None,
        Not,
        Negate,
        And,
        Or,
        Less,
        LessEqual,
        Greater,
        GreaterEqual,
        Equal,
        NotEqual,
        Add,
        Subtract,
        Multiply,
        Divide,
        Has,
        Abs,
        Min,
        Max
    };
    Kind kind = Kind::Number;
    Op op = Op::None;
    double number = 0;
    std::string name;  // metric, param, label, string literal, operator or function
    std::vector<std::shared_ptr<const Expression>> children;
    std::size_t depth = 1;  // levels of the tree below and including this node
};

namespace {

using Node = std::shared_ptr<const Expression>;

Expression::Op op_code(Expression::Kind kind, std::string_view name) {
    using K = Expression::Kind;
    using O = Expression::Op;
    if (kind == K::Unary) return name == "!" ? O::Not : O::Negate;
    if (kind == K::Call) {
        if (name == "has") return O::Has;
        if (name == "abs") return O::Abs;
        return name == "min" ? O::Min : O::Max;
    }
    if (kind != K::Binary) return O::None;
    static constexpr std::pair<std::string_view, O> kBinary[] = {
        {"&&", O::And},    {"||", O::Or},           {"<", O::Less},     {"<=", O::LessEqual},
        {">", O::Greater}, {">=", O::GreaterEqual}, {"==", O::Equal},   {"!=", O::NotEqual},
        {"+", O::Add},     {"-", O::Subtract},      {"*", O::Multiply}, {"/", O::Divide}};
    for (const auto& [text, op] : kBinary)
        if (name == text) return op;
    return O::None;
}

class Parser {
  public:
    explicit Parser(std::string_view text) : text_(text) {}

    /// Deeper trees (or parentheses) are refused: evaluating and freeing a tree recurses, and a
    /// condition such as 100,000 nested parentheses must not overflow the stack.
    static constexpr std::size_t kMaxDepth = 200;

    Result<Node> parse() {
        Node node = parse_or();
        skip_space();
        if (!error_.empty()) return Error{error_, "", 0, ExitCode::InputError};
        if (pos_ != text_.size()) {
            return Error{fmt::format("unexpected '{}' at column {} of '{}'", text_.substr(pos_, 1),
                                     pos_ + 1, text_),
                         "", 0, ExitCode::InputError};
        }
        return node;
    }

  private:
    void skip_space() {
        while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    }
    bool accept(std::string_view token) {
        skip_space();
        if (text_.substr(pos_, token.size()) == token) {
            pos_ += token.size();
            return true;
        }
        return false;
    }
    Node fail(std::string message) {
        if (error_.empty())
            error_ = fmt::format("{} at column {} of '{}'", message, pos_ + 1, text_);
        auto node = std::make_shared<Expression>();
        return node;
    }
    Node make(Expression::Kind kind, std::string name, std::vector<Node> children = {}) {
        auto node = std::make_shared<Expression>();
        node->kind = kind;
        node->name = std::move(name);
        node->op = op_code(kind, node->name);
        for (const Node& child : children) node->depth = std::max(node->depth, child->depth + 1);
        node->children = std::move(children);
        if (node->depth > kMaxDepth)
            return fail(fmt::format("nested deeper than {} levels", kMaxDepth));
        return node;
    }
    /// Counts the parser's own recursion (parentheses, unary operators, call arguments).
    class Nesting {
      public:
        explicit Nesting(Parser& parser) : parser_(parser) { ++parser_.nesting_; }
        ~Nesting() { --parser_.nesting_; }
        Nesting(const Nesting&) = delete;
        Nesting& operator=(const Nesting&) = delete;
        bool too_deep() const { return parser_.nesting_ > kMaxDepth; }

      private:
        Parser& parser_;
    };

    Node parse_or() {
        Nesting nesting(*this);
        if (nesting.too_deep()) return fail(fmt::format("nested deeper than {} levels", kMaxDepth));
        Node left = parse_and();
        while (error_.empty() && accept("||"))
            left = make(Expression::Kind::Binary, "||", {left, parse_and()});
        return left;
    }
    Node parse_and() {
        Node left = parse_comparison();
        while (error_.empty() && accept("&&")) {
            left = make(Expression::Kind::Binary, "&&", {left, parse_comparison()});
        }
        return left;
    }
    Node parse_comparison() {
        Node left = parse_sum();
        for (std::string_view op : {"<=", ">=", "==", "!=", "<", ">"}) {
            if (accept(op))
                return make(Expression::Kind::Binary, std::string(op), {left, parse_sum()});
        }
        return left;
    }
    Node parse_sum() {
        Node left = parse_product();
        while (error_.empty()) {
            if (accept("+"))
                left = make(Expression::Kind::Binary, "+", {left, parse_product()});
            else if (accept("-"))
                left = make(Expression::Kind::Binary, "-", {left, parse_product()});
            else
                break;
        }
        return left;
    }
    Node parse_product() {
        Node left = parse_unary();
        while (error_.empty()) {
            if (accept("*"))
                left = make(Expression::Kind::Binary, "*", {left, parse_unary()});
            else if (accept("/"))
                left = make(Expression::Kind::Binary, "/", {left, parse_unary()});
            else
                break;
        }
        return left;
    }
    Node parse_unary() {
        Nesting nesting(*this);
        if (nesting.too_deep()) return fail(fmt::format("nested deeper than {} levels", kMaxDepth));
        if (accept("!")) return make(Expression::Kind::Unary, "!", {parse_unary()});
        if (accept("-")) return make(Expression::Kind::Unary, "-", {parse_unary()});
        return parse_primary();
    }
    std::string identifier() {
        std::size_t start = pos_;
        while (pos_ < text_.size()) {
            char c = text_[pos_];
            if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-') {
                // A '-' belongs to the name only inside it (ids like PH-MR-001), never before a
                // space.
                if (c == '-' &&
                    (pos_ + 1 >= text_.size() ||
                     !std::isalnum(static_cast<unsigned char>(text_[pos_ + 1])) || pos_ == start)) {
                    break;
                }
                ++pos_;
            } else {
                break;
            }
        }
        return std::string(text_.substr(start, pos_ - start));
    }
    Node parse_primary() {
        skip_space();
        if (pos_ >= text_.size()) return fail("unexpected end");
        char c = text_[pos_];
        if (c == '(') {
            ++pos_;
            Node inner = parse_or();
            if (!accept(")")) return fail("expected ')'");
            return inner;
        }
        if (c == '"') {
            std::size_t end = text_.find('"', pos_ + 1);
            if (end == std::string_view::npos) return fail("unterminated string");
            Node node =
                make(Expression::Kind::String, std::string(text_.substr(pos_ + 1, end - pos_ - 1)));
            pos_ = end + 1;
            return node;
        }
        if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
            std::size_t start = pos_;
            while (pos_ < text_.size() &&
                   (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.' ||
                    text_[pos_] == 'e' || text_[pos_] == 'E' ||
                    ((text_[pos_] == '-' || text_[pos_] == '+') &&
                     (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E')))) {
                ++pos_;
            }
            auto value = text::parse_double(text_.substr(start, pos_ - start));
            if (!value) return fail("bad number");
            auto node = std::make_shared<Expression>();
            node->kind = Expression::Kind::Number;
            node->number = *value;
            return node;
        }
        if (c == '$') {
            ++pos_;
            std::string name = identifier();
            if (name.empty()) return fail("expected a parameter name after '$'");
            return make(Expression::Kind::Param, name);
        }
        std::string name = identifier();
        if (name.empty()) return fail(fmt::format("unexpected '{}'", c));
        if (accept("(")) {
            if (name == "label") {
                skip_space();
                Node argument = parse_primary();
                if (!accept(")")) return fail("expected ')'");
                if (argument->kind != Expression::Kind::String)
                    return fail("label() takes a \"name\"");
                return make(Expression::Kind::Label, argument->name);
            }
            std::vector<Node> args;
            if (!accept(")")) {
                do {
                    if (name == "has") {
                        skip_space();
                        std::string metric = identifier();
                        if (metric.empty()) return fail("has() takes a metric name");
                        args.push_back(make(Expression::Kind::Metric, metric));
                    } else {
                        args.push_back(parse_or());
                    }
                } while (accept(","));
                if (!accept(")")) return fail("expected ')'");
            }
            std::size_t arity = name == "has" || name == "abs" ? 1 : 2;
            if (name != "has" && name != "abs" && name != "min" && name != "max") {
                return fail(fmt::format("unknown function '{}'", name));
            }
            if (args.size() != arity)
                return fail(fmt::format("{}() takes {} argument(s)", name, arity));
            return make(Expression::Kind::Call, name, std::move(args));
        }
        if (name == "true" || name == "false") {
            auto node = std::make_shared<Expression>();
            node->number = name == "true" ? 1 : 0;
            return node;
        }
        return make(Expression::Kind::Metric, name);
    }

    std::string_view text_;
    std::size_t pos_ = 0;
    std::size_t nesting_ = 0;
    std::string error_;
};

/// Only String and Label nodes have text values; every other node a number (or none).
bool text_valued(const Expression& e) {
    return e.kind == Expression::Kind::String || e.kind == Expression::Kind::Label;
}

/// Where an evaluation reads metrics and labels: a Subject's, by name.
struct SubjectLookup {
    const Subject& subject;
    std::optional<double> metric(const Expression& node) const { return subject.metric(node.name); }
    const std::string* label(const std::string& name) const {
        auto it = subject.labels.find(name);
        return it == subject.labels.end() ? nullptr : &it->second;
    }
};

template <class Lookup>
std::optional<double> eval_number(const Expression& e, const Lookup& lookup,
                                  const std::map<std::string, double>& params);

/// An operand of `==` or `!=` beside a text: a text (a string literal, a label's value) or a
/// number; nullopt when missing.
template <class Lookup>
std::optional<Value> operand_value(const Expression& e, const Lookup& lookup,
                                   const std::map<std::string, double>& params) {
    if (e.kind == Expression::Kind::String) return Value{e.name};
    if (e.kind == Expression::Kind::Label) {
        const std::string* label = lookup.label(e.name);
        if (label == nullptr) return std::nullopt;
        return Value{*label};
    }
    auto number = eval_number(e, lookup, params);
    if (!number) return std::nullopt;
    return Value{*number};
}

/// A node's value, which is a number: a text value, like a missing one, is nullopt. Runs once
/// per rule and subject (every case of a sweep), so without a variant or an operator's name.
template <class Lookup>
std::optional<double> eval_number(const Expression& e, const Lookup& lookup,
                                  const std::map<std::string, double>& params) {
    using K = Expression::Kind;
    using O = Expression::Op;
    switch (e.kind) {
        case K::Number:
            return e.number;
        case K::String:
        case K::Label:
            return std::nullopt;
        case K::Metric:
            return lookup.metric(e);
        case K::Param: {
            auto it = params.find(e.name);
            if (it == params.end()) return std::nullopt;
            return it->second;
        }
        case K::Unary: {
            auto value = eval_number(*e.children[0], lookup, params);
            if (!value) return std::nullopt;
            return e.op == O::Not ? (*value == 0 ? 1.0 : 0.0) : -*value;
        }
        case K::Call: {
            if (e.op == O::Has) return lookup.metric(*e.children[0]) ? 1.0 : 0.0;
            auto a = eval_number(*e.children[0], lookup, params);
            if (!a) return std::nullopt;
            if (e.op == O::Abs) return std::fabs(*a);
            auto b = eval_number(*e.children[1], lookup, params);
            if (!b) return std::nullopt;
            return e.op == O::Min ? std::min(*a, *b) : std::max(*a, *b);
        }
        case K::Binary:
            break;
    }
    if (e.op == O::And || e.op == O::Or) {
        const bool is_and = e.op == O::And;
        // Kleene logic: a decided operand wins over an unknown one.
        auto a = eval_number(*e.children[0], lookup, params);
        if (a && ((*a != 0) != is_and)) return is_and ? 0.0 : 1.0;
        auto b = eval_number(*e.children[1], lookup, params);
        if (b && ((*b != 0) != is_and)) return is_and ? 0.0 : 1.0;
        if (!a || !b) return std::nullopt;
        return is_and ? 1.0 : 0.0;
    }
    if (text_valued(*e.children[0]) || text_valued(*e.children[1])) {
        // Text compares only by == and != (a text never equals a number); any other
        // operator is unknown.
        if (e.op != O::Equal && e.op != O::NotEqual) return std::nullopt;
        auto left = operand_value(*e.children[0], lookup, params);
        auto right = operand_value(*e.children[1], lookup, params);
        if (!left || !right) return std::nullopt;
        return (*left == *right) == (e.op == O::Equal) ? 1.0 : 0.0;
    }
    auto left = eval_number(*e.children[0], lookup, params);
    if (!left) return std::nullopt;
    auto right = eval_number(*e.children[1], lookup, params);
    if (!right) return std::nullopt;
    const double a = *left, b = *right;
    switch (e.op) {
        case O::Less:
            return a < b ? 1.0 : 0.0;
        case O::LessEqual:
            return a <= b ? 1.0 : 0.0;
        case O::Greater:
            return a > b ? 1.0 : 0.0;
        case O::GreaterEqual:
            return a >= b ? 1.0 : 0.0;
        case O::Equal:
            return a == b ? 1.0 : 0.0;
        case O::NotEqual:
            return a != b ? 1.0 : 0.0;
        case O::Add:
            return a + b;
        case O::Subtract:
            return a - b;
        case O::Multiply:
            return a * b;
        case O::Divide:
            if (b == 0) return std::nullopt;
            return a / b;
        default:
            return std::nullopt;
    }
}

void collect(const Expression& e, Expression::Kind kind, std::vector<std::string>& out) {
    if (e.kind == kind && std::find(out.begin(), out.end(), e.name) == out.end())
        out.push_back(e.name);
    for (const auto& child : e.children) collect(*child, kind, out);
}

}  // namespace

Result<std::shared_ptr<const Expression>> compile_expression(std::string_view text) {
    return Parser(text).parse();
}

std::optional<double> evaluate_expression(const Expression& expression, const Subject& subject,
                                          const std::map<std::string, double>& params) {
    return eval_number(expression, SubjectLookup{subject}, params);
}

SlottedExpression::SlottedExpression(std::shared_ptr<const Expression> expression,
                                     std::span<const std::string_view> names)
    : expression_(std::move(expression)) {
    auto bind = [&](const auto& self, const Expression& e) -> void {
        if (e.kind == Expression::Kind::Metric) {
            auto at = std::find(names.begin(), names.end(), e.name);
            slots_.push_back(
                {&e, at == names.end() ? kMissing : static_cast<std::size_t>(at - names.begin())});
        }
        for (const auto& child : e.children) self(self, *child);
    };
    bind(bind, *expression_);
}

std::optional<double> SlottedExpression::evaluate(
    std::span<const std::optional<double>> values,
    const std::map<std::string, double>& params) const {
    // A metric node's position is found among the expression's few metric nodes by address.
    struct SlotLookup {
        const SlottedExpression& slotted;
        std::span<const std::optional<double>> values;
        std::optional<double> metric(const Expression& node) const {
            for (const auto& [bound, slot] : slotted.slots_)
                if (bound == &node) return slot < values.size() ? values[slot] : std::nullopt;
            return std::nullopt;
        }
        const std::string* label(const std::string&) const { return nullptr; }
    };
    return eval_number(*expression_, SlotLookup{*this, values}, params);
}

std::vector<std::string> expression_metrics(const Expression& expression) {
    std::vector<std::string> names;
    collect(expression, Expression::Kind::Metric, names);
    return names;
}

std::vector<std::string> expression_params(const Expression& expression) {
    std::vector<std::string> names;
    collect(expression, Expression::Kind::Param, names);
    return names;
}

}  // namespace ptune::rules
