"""The retail world: customers, a catalogue, orders with their payments, built from a seed."""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache

from evals.engine.world import World

CURRENCY = "USD"
RETURN_WINDOW_DAYS = 30

# Named humans the agent hands cases to, by category (the backoffice roster of the sandbox).
ROSTER: dict[str, str] = {
    "dispute": "Dana Whitfield (payments disputes)",
    "out_of_policy": "Marcus Lee (customer care supervisor)",
    "fraud": "Priya Raman (fraud desk)",
    "other": "Jo Okafor (customer care)",
}


@dataclass(frozen=True, slots=True)
class Address:
    line1: str
    city: str
    zip: str

    def text(self) -> str:
        return f"{self.line1}, {self.city}, {self.zip}"


@dataclass(frozen=True, slots=True)
class Customer:
    id: str
    first_name: str
    last_name: str
    email: str
    address: Address
    gift_card_balance: int


@dataclass(frozen=True, slots=True)
class Variant:
    item_id: str
    option: str
    price: int
    available: bool


@dataclass(frozen=True, slots=True)
class Product:
    id: str
    name: str
    variants: tuple[Variant, ...]


@dataclass(frozen=True, slots=True)
class OrderItem:
    item_id: str
    product_id: str
    name: str
    option: str
    price: int
    status: str
    exchange_for: str = ""


@dataclass(frozen=True, slots=True)
class Order:
    id: str
    customer_id: str
    status: str  # pending | processed | delivered | cancelled
    items: tuple[OrderItem, ...]
    address: Address
    payment_method: str  # card | paypal | gift_card
    captured: int
    refunded: int
    days_since_delivery: int
    cancel_reason: str = ""


class RetailWorld(World):
    def customer(self, customer_id: str) -> Customer:
        return self.record(
            "customers",
            customer_id,
            f"No customer with id {customer_id!r}.",
        )

    def order(self, order_id: str) -> Order:
        return self.record(
            "orders",
            order_id,
            f"No order with id {order_id!r}. Order ids look like #W1234567.",
        )

    def product(self, product_id: str) -> Product:
        return self.record(
            "products",
            product_id,
            f"No product with id {product_id!r}.",
        )

    def put(self, table: str, key: str, record: object) -> None:
        self.tables[table][key] = record

    def orders_of(self, customer_id: str) -> list[Order]:
        return self.records_where("orders", customer_id=customer_id)


FIRST = [
    "Sara",
    "Yusuf",
    "Mei",
    "Olivia",
    "Raj",
    "Ethan",
    "Chen",
    "Lucas",
    "Amara",
    "Noah",
    "Isabella",
    "Omar",
    "Hana",
    "Liam",
    "Sofia",
    "Daniel",
]
LAST = [
    "Lopez",
    "Rossi",
    "Wang",
    "Smith",
    "Patel",
    "Kim",
    "Garcia",
    "Nguyen",
    "Brown",
    "Okafor",
    "Silva",
    "Kowalski",
    "Haddad",
    "Johnson",
    "Moreau",
    "Tanaka",
]
STREETS = [
    "Oak Street",
    "Maple Avenue",
    "Pine Road",
    "Cedar Lane",
    "Elm Drive",
    "Birch Street",
    "Willow Avenue",
    "Lake Road",
]
CITIES = ["Springfield", "Riverton", "Fairview", "Madison", "Georgetown", "Salem"]
CATALOGUE: list[tuple[str, list[str], int]] = [
    ("water bottle", ["red", "blue", "green", "black"], 2499),
    ("backpack", ["grey", "navy", "olive", "black"], 5999),
    ("desk lamp", ["white", "black", "brass", "silver"], 3450),
    ("running shoes", ["size 8", "size 9", "size 10", "size 11"], 8900),
    ("t-shirt", ["small", "medium", "large", "x-large"], 1999),
    ("headphones", ["black", "white", "rose", "blue"], 12999),
    ("coffee maker", ["steel", "black", "red", "white"], 7925),
    ("yoga mat", ["purple", "teal", "grey", "pink"], 3100),
]


def _catalogue(rng: random.Random) -> dict[str, Product]:
    products = {}
    for p_index, (name, options, base) in enumerate(CATALOGUE):
        product_id = f"P{100 + p_index}"
        variants = tuple(
            Variant(
                item_id=f"{rng.randrange(10**9, 10**10)}",
                option=option,
                price=base + 150 * v_index,
                available=v_index != 3,
            )
            for v_index, option in enumerate(options)
        )
        products[product_id] = Product(product_id, name, variants)
    return products


def _order_item(product: Product, variant: Variant, status: str) -> OrderItem:
    return OrderItem(
        variant.item_id, product.id, product.name, variant.option, variant.price, status
    )


def _generate(seed: int, customers_n: int = 12) -> RetailWorld:
    rng = random.Random(seed)
    products = _catalogue(rng)
    product_list = list(products.values())
    customers: dict[str, Customer] = {}
    orders: dict[str, Order] = {}
    used_names: set[tuple[str, str]] = set()
    plans = [
        ("pending", 2, 0),
        ("processed", 1, 0),
        ("delivered", 2, 6),
        ("delivered", 2, 12),
        ("delivered", 1, 48),
        ("cancelled", 1, 0),
    ]
    for c_index in range(customers_n):
        while True:
            first, last = rng.choice(FIRST), rng.choice(LAST)
            if (first, last) not in used_names:
                used_names.add((first, last))
                break
        zip_code = f"{rng.randrange(10000, 99999)}"
        address = Address(
            f"{rng.randrange(1, 999)} {rng.choice(STREETS)}", rng.choice(CITIES), zip_code
        )
        customer_id = f"{first.lower()}_{last.lower()}_{rng.randrange(1000, 9999)}"
        balance = rng.choice([0, 500, 1000, 2500, 15000])
        customers[customer_id] = Customer(
            customer_id,
            first,
            last,
            f"{first.lower()}.{last.lower()}{c_index}@example.com",
            address,
            balance,
        )
        for status, n_items, days in plans:
            order_id = f"#W{rng.randrange(10**6, 10**7)}"
            chosen = rng.sample(product_list, n_items)
            item_status = {
                "pending": "ordered",
                "processed": "ordered",
                "delivered": "delivered",
                "cancelled": "cancelled",
            }[status]
            items = tuple(
                _order_item(p, rng.choice([v for v in p.variants[:3]]), item_status) for p in chosen
            )
            total = sum(i.price for i in items)
            orders[order_id] = Order(
                id=order_id,
                customer_id=customer_id,
                status=status,
                items=items,
                address=address,
                payment_method=rng.choice(["card", "paypal", "card", "gift_card"]),
                captured=total,
                refunded=total if status == "cancelled" else 0,
                days_since_delivery=days,
                cancel_reason="no longer needed" if status == "cancelled" else "",
            )
    return RetailWorld({"customers": customers, "products": products, "orders": orders})


@lru_cache(maxsize=8)
def build_world(seed: int) -> RetailWorld:
    """The pristine world for `seed` (cached: the engine only ever uses copies of it)."""
    return _generate(seed)
