/*
 * name_simple.c - see name_simple.h.
 *
 * One pass over the demangled name, copying what stays over itself (the output never
 * runs ahead of the input). Skipped: a '<' group (template arguments, with whatever they
 * nest: "std::function<void (int)>"), a '(' group (a parameter list, also a lambda's
 * "{lambda(int)#1}") and the qualifiers that follow a parameter list (" const", " &&").
 * Kept: "(anonymous namespace)" and the token after "operator", whose '<', '>' and "()"
 * are the operator's own, not brackets (the longest operator token: what follows it may be
 * the template's '<').
 */
#include "name_simple.h"

#include <stdbool.h>
#include <string.h>

static bool ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$';
}

static bool starts(const char *p, const char *word)
{
    return !strncmp(p, word, strlen(word));
}

/* The length of the operator token at p, the longest that matches: the demangler writes
 * an operator template's arguments right after it ("operator!=<int>", "operator><int>"),
 * with a space only after a token that ends in '<' ("operator< <int>"). */
static size_t operator_token(const char *p)
{
    static const char *const tokens[] = {
        "<<=", ">>=", "<=>", "->*", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "++", "--",
        "+=",  "-=",  "*=",  "/=",  "%=", "^=", "&=", "|=", "->", "<",  ">",  "=",  "!",  "+",
        "-",   "*",   "/",   "%",   "^",  "&",  "|",  "~",  ",",
    };
    for (size_t i = 0; i < sizeof tokens / sizeof tokens[0]; i++)
        if (starts(p, tokens[i]))
            return strlen(tokens[i]);
    return 0;
}

/* p at '<' or '(': past its matching close, or NULL if there is none. Angle brackets
 * inside parentheses are not counted ("foo<(1>2)>", a function type's parameters). */
static const char *skip_group(const char *p)
{
    int angle = 0, paren = 0;
    for (; *p; p++) {
        if (*p == '(')
            paren++;
        else if (*p == ')' && --paren < 0)
            return NULL;
        else if (!paren && *p == '<')
            angle++;
        else if (!paren && *p == '>' && --angle < 0)
            return NULL;
        if (!paren && !angle)
            return p + 1;
    }
    return NULL;
}

/* Qualifiers after a parameter list: past them. */
static const char *skip_qualifiers(const char *p)
{
    static const char *const words[] = {" const", " volatile", " noexcept", " &&", " &"};
    for (bool again = true; again;) {
        again = false;
        for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
            size_t n = strlen(words[i]);
            if (starts(p, words[i]) && (words[i][1] == '&' || !ident_char(p[n]))) {
                p += n;
                again = true;
                break;
            }
        }
    }
    return p;
}

size_t fr_name_simplify(char *name)
{
    char *out = name;
    const char *p = name;
    int braces = 0;            /* inside "{lambda(int)#1}", "{unnamed type#1}" */
    bool declarator = false;   /* inside "(*name(...))" of a function returning a pointer */
    while (*p) {
        /* A function template's return type comes first ("void f<int>(int)",
         * "std::vector<int> ns::make<int>()"): a space outside brackets that does not
         * start template arguments, parameters or "[clone ...]" ends it, and what came
         * before is dropped. */
        if (*p == ' ' && !braces && p[1] != '<' && p[1] != '(' && p[1] != '[') {
            out = name;
            p++;
            continue;
        }
        if (*p == '(' && p[1] == '*' && !declarator) {   /* "void (*get<int>())(int)" */
            out = name;
            p += 2;
            declarator = true;
            continue;
        }
        if (*p == ')' && declarator) {   /* the pointed-to function's parameters follow */
            p += strlen(p);
            break;
        }
        if (*p == '[') {                 /* "[clone .cold]", "[abi:cxx11]": as written */
            const char *end = strchr(p, ']');
            if (!end)
                break;
            while (p <= end)
                *out++ = *p++;
            continue;
        }
        braces += (*p == '{') - (*p == '}');
        if (starts(p, "operator") && !ident_char(p[8]) && (p == name || !ident_char(p[-1]))) {
            for (int i = 0; i < 8; i++)
                *out++ = *p++;
            if ((p[0] == '(' && p[1] == ')') || (p[0] == '[' && p[1] == ']')) {
                *out++ = *p++;       /* operator(), operator[] */
                *out++ = *p++;
            } else if (*p == ' ') {  /* operator new[], a conversion: up to its parameters */
                while (*p && *p != '(' && *p != '<')
                    *out++ = *p++;
            } else if (p[0] == '"' && p[1] == '"') {   /* operator"" _km: a literal suffix */
                *out++ = *p++;
                *out++ = *p++;
                while (*p == ' ' || ident_char(*p))
                    *out++ = *p++;
            } else {                 /* operator<<, operator->*, operator<=>, operator, */
                size_t n = operator_token(p);
                memmove(out, p, n);
                out += n;
                p += n;
            }
            continue;
        }
        if (*p == '(' && starts(p, "(anonymous namespace)")) {
            size_t n = strlen("(anonymous namespace)");
            memmove(out, p, n);
            out += n;
            p += n;
            continue;
        }
        if (*p == '<' || *p == '(') {
            const char *end = skip_group(p);
            if (!end)
                break;               /* unmatched: kept as it is from here */
            if (*p == '(')
                end = skip_qualifiers(end);
            else if (out > name && out[-1] == ' ')
                out--;               /* "operator< <int>": the space before the arguments */
            p = end;
            continue;
        }
        *out++ = *p++;
    }
    size_t rest = strlen(p);
    memmove(out, p, rest + 1);
    return (size_t)(out - name) + rest;
}
