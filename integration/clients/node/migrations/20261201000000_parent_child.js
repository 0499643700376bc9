// A parent table and a child table whose foreign key references the parent's primary key.
'use strict';

const parent = () => `${process.env.OSQL_TABLE}_parent`;
const child = () => `${process.env.OSQL_TABLE}_child`;

exports.up = async (knex) => {
  await knex.schema.createTable(parent(), (t) => {
    t.increments('id');
    t.string('name', 40);
  });
  await knex.schema.createTable(child(), (t) => {
    t.increments('id');
    t.integer('parent_id').unsigned().notNullable().references('id').inTable(parent());
  });
};

exports.down = async (knex) => {
  await knex.schema.dropTable(child());
  await knex.schema.dropTable(parent());
};
